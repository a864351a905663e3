"""The byte limits of a server's HTTP side (``run()``'s ``max_*_bytes*`` arguments): their defaults, their least
values and how they bound each other, checked in one place for ``run()``/``start()``/``make_app()``,
``nanohubmcp run`` and ``start_mcp --app`` (whose refusals name the options instead of the arguments).

A per-principal share at or above its whole (``max_buffered_bytes_per_principal`` of ``max_buffered_bytes``,
``max_unsent_bytes_per_principal`` of ``max_unsent_bytes``) is taken: a share cannot be more than the whole,
so it is the whole, and one principal may hold all of it (no per-principal bound). Nothing is imported
here, so that a command line is checked before anything heavy is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from ..protocol.whole_numbers import whole_number, whole_refusal

__all__ = [
    "DEFAULT_MAX_BUFFERED_BYTES",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_MAX_UNSENT_BYTES",
    "MIN_REQUEST_BYTES",
    "MIN_UNSENT_BYTES",
    "check_limits",
]

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""Largest request body accepted (413 above it)."""
DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024
"""Most bytes of request bodies being received at once, over every connection (503 beyond it):
sixteen bodies of the default largest size."""
DEFAULT_MAX_UNSENT_BYTES = 256 * 1024 * 1024
"""Most response bytes a server holds for clients that have not read them (``max_unsent_bytes``)."""
MIN_REQUEST_BYTES = 1024
"""The least ``max_request_bytes`` may be."""
MIN_UNSENT_BYTES = 1024 * 1024
"""The least ``max_unsent_bytes`` and ``max_unsent_bytes_per_principal`` may be (1 MiB)."""


def check_limits(limits: Mapping[str, object], name: Callable[[str], str] = str) -> dict[str, int | None]:
    """Refuse limits a server cannot serve with, before anything is served.

    Args:
        limits: ``run()``'s keyword -> its value (``{"max_request_bytes": 65536}``); a keyword left out holds
            ``run()``'s default (None, derived from the others, for the two per-principal shares).
        name: what a refusal calls a keyword: itself (``run()``), or the option giving it
            (``--max-unsent-bytes-per-principal``).

    Returns:
        ``limits`` with each value an int: a float holding a whole number (``1.5e6``, as ``%config`` and the
        export take it) made the int, None kept for a share.

    Raises:
        ConfigurationError: one line naming the first limit refused and its least value: one that is not a
            whole number of bytes (a share: or None), ``max_request_bytes`` below 1024, ``max_buffered_bytes``
            or a set ``max_buffered_bytes_per_principal`` below ``max_request_bytes`` (a body of the largest
            size must fit; named as ``max_request_bytes`` above ``max_buffered_bytes`` when that is its
            default), ``max_unsent_bytes`` or a set ``max_unsent_bytes_per_principal`` below 1 MiB.

    Example:
        >>> check_limits({"max_unsent_bytes": 100})
        Traceback (most recent call last):
        ...
        nanohubmcp.errors.ConfigurationError: max_unsent_bytes must be at least 1 MiB (1048576), not 100
    """
    request = _whole(name, "max_request_bytes", limits.get("max_request_bytes", DEFAULT_MAX_REQUEST_BYTES))
    buffered = _whole(name, "max_buffered_bytes", limits.get("max_buffered_bytes", DEFAULT_MAX_BUFFERED_BYTES))
    unsent = _whole(name, "max_unsent_bytes", limits.get("max_unsent_bytes", DEFAULT_MAX_UNSENT_BYTES))
    buffered_share = _share(name, "max_buffered_bytes_per_principal", limits)
    unsent_share = _share(name, "max_unsent_bytes_per_principal", limits)
    def given(keyword: str, value: int | None) -> str:  # as written: 1e+30, not the float's 31 digits
        return shown_value(limits.get(keyword, value))

    _at_least(name, "max_request_bytes", request, MIN_REQUEST_BYTES, str(MIN_REQUEST_BYTES), given=given)
    if buffered == DEFAULT_MAX_BUFFERED_BYTES and request > buffered:  # the one set is max_request_bytes: name it
        raise ConfigurationError(
            f"{name('max_request_bytes')} must be at most {name('max_buffered_bytes')} ({buffered}), "
            f"not {given('max_request_bytes', request)}: "
            f"a body of the largest size must fit; to go higher, raise {name('max_buffered_bytes')} too")
    fits = f"{name('max_request_bytes')} ({given('max_request_bytes', request)})"
    _at_least(name, "max_buffered_bytes", buffered, request, fits, ": a body of the largest size must fit",
              given=given)
    _at_least(name, "max_buffered_bytes_per_principal", buffered_share, request, fits,
              ": a body of the largest size must fit in one principal's share", given=given)
    mib = f"1 MiB ({MIN_UNSENT_BYTES})"
    _at_least(name, "max_unsent_bytes", unsent, MIN_UNSENT_BYTES, mib, given=given)
    _at_least(name, "max_unsent_bytes_per_principal", unsent_share, MIN_UNSENT_BYTES, mib, given=given)
    taken = {"max_request_bytes": request, "max_buffered_bytes": buffered, "max_unsent_bytes": unsent,
             "max_buffered_bytes_per_principal": buffered_share, "max_unsent_bytes_per_principal": unsent_share}
    return {keyword: value for keyword, value in taken.items() if keyword in limits}


def _whole(name: Callable[[str], str], keyword: str, value: object, *, share: bool = False) -> int:
    """``value`` as an int: any whole number (numpy's ``int64``, ``1.5e6``), as ``MCPServer``'s byte limits read it,
    refused in their words: "max_request_bytes must be a number of bytes >= 1024, not 5.5; write a whole number:
    6"."""
    number = whole_number(value)
    if number is None:
        least = {"max_request_bytes": str(MIN_REQUEST_BYTES), "max_buffered_bytes": name("max_request_bytes"),
                 "max_buffered_bytes_per_principal": name("max_request_bytes"),
                 }.get(keyword, f"1 MiB ({MIN_UNSENT_BYTES})")
        raise ConfigurationError(whole_refusal(name(keyword), f"a number of bytes >= {least}{', or None' * share}",
                                               value))
    return number


def _share(name: Callable[[str], str], keyword: str, limits: Mapping[str, object]) -> int | None:
    value = limits.get(keyword)
    return None if value is None else _whole(name, keyword, value, share=True)


def _at_least(name: Callable[[str], str], keyword: str, value: int | None, least: int, least_said: str,
              why: str = "", *, given: Callable[[str, int | None], str]) -> None:
    if value is not None and value < least:
        raise ConfigurationError(f"{name(keyword)} must be at least {least_said}, not {given(keyword, value)}{why}")
