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


def check_limits(limits: Mapping[str, object], name: Callable[[str], str] = str) -> None:
    """Refuse limits a server cannot serve with, before anything is served.

    Args:
        limits: ``run()``'s keyword -> its value (``{"max_request_bytes": 65536}``); a keyword left out holds
            ``run()``'s default (None, derived from the others, for the two per-principal shares).
        name: what a refusal calls a keyword: itself (``run()``), or the option giving it
            (``--max-unsent-bytes-per-principal``).

    Raises:
        ConfigurationError: one line naming the first limit refused and its least value: one that is not a
            whole number of bytes (a share: or None), ``max_request_bytes`` below 1024, ``max_buffered_bytes``
            or a set ``max_buffered_bytes_per_principal`` below ``max_request_bytes`` (a body of the largest
            size must fit), ``max_unsent_bytes`` or a set ``max_unsent_bytes_per_principal`` below 1 MiB.

    Example:
        >>> check_limits({"max_unsent_bytes": 100})
        Traceback (most recent call last):
        ...
        nanohubmcp.errors.ConfigurationError: max_unsent_bytes must be at least 1 MiB (1048576), not 100
    """
    request = limits.get("max_request_bytes", DEFAULT_MAX_REQUEST_BYTES)
    _at_least(name, "max_request_bytes", request, MIN_REQUEST_BYTES, str(MIN_REQUEST_BYTES))
    assert isinstance(request, int)  # (checked just above)
    fits = f"{name('max_request_bytes')} ({request})"
    _at_least(name, "max_buffered_bytes", limits.get("max_buffered_bytes", DEFAULT_MAX_BUFFERED_BYTES), request,
              fits, ": a body of the largest size must fit")
    _at_least(name, "max_buffered_bytes_per_principal", limits.get("max_buffered_bytes_per_principal"), request,
              fits, ": a body of the largest size must fit in one principal's share", optional=True)
    mib = f"1 MiB ({MIN_UNSENT_BYTES})"
    _at_least(name, "max_unsent_bytes", limits.get("max_unsent_bytes", DEFAULT_MAX_UNSENT_BYTES), MIN_UNSENT_BYTES,
              mib)
    _at_least(name, "max_unsent_bytes_per_principal", limits.get("max_unsent_bytes_per_principal"),
              MIN_UNSENT_BYTES, mib, optional=True)


def _at_least(name: Callable[[str], str], keyword: str, value: object, least: int, least_said: str, why: str = "",
              *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigurationError(f"{name(keyword)} must be a whole number of bytes{', or None' * optional}, "
                                 f"not {value!r}")
    if value < least:
        raise ConfigurationError(f"{name(keyword)} must be at least {least_said}, not {value}{why}")
