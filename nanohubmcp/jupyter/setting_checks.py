"""The checks of the notebook's settings: what ``%config NanohubMCP.x = v`` and a profile may set.

Each function takes a value proposed for one ``NanohubMCP`` setting and returns the value kept, or raises
``TraitError`` with one line naming the setting and why (the configurable reports it on stderr and keeps its
value). Where the server, ``run()`` or ``nanohubmcp run`` has a rule for the same option, the check is that rule,
so a notebook and its exported script take the same values. The token and the state URL are kept as ``str``
subclasses whose ``repr`` hides the secret (:class:`HiddenToken`, :class:`HiddenPassword`): ``%config
NanohubMCP`` prints every setting by ``repr`` and a cell's output is saved with the notebook.

It owns no setting and holds no value: :mod:`.config` declares the settings and calls these from its validators.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from traitlets import TraitError

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value

__all__ = [
    "CHECKS",
    "MAX_SWITCH_SECONDS",
    "MIN_SWITCH_SECONDS",
    "HiddenPassword",
    "HiddenToken",
    "checked_limit_pair",
    "checked_name",
    "checked_port",
    "checked_state_dir",
    "checked_switch",
    "checked_token",
    "checked_url_part",
    "checked_value",
    "hidden_password",
]

MIN_SWITCH_SECONDS = 0.000001
"""The shortest ``switch_interval``: a microsecond, the interpreter's resolution (a shorter one is read as 0)."""
MAX_SWITCH_SECONDS = 1
"""The longest ``switch_interval`` taken (a value above the interpreter's own leaves it anyway)."""


class HiddenToken(str):
    """A configured token: the text itself, whose ``repr`` hides it. ``%config NanohubMCP`` prints every
    setting's current value by ``repr``, and a cell's output is saved with the notebook; only ``%mcp token``
    shows the token."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'<hidden: %mcp token shows it>'"


class HiddenPassword(str):
    """A configured state URL: the text itself, whose ``repr`` shows it with its password as ``***``
    (``'redis://:***@host:6379/0'``), as the server's logs and errors do: ``%config NanohubMCP`` prints
    every setting by ``repr``, and a cell's output is saved with the notebook."""

    __slots__ = ()

    def __repr__(self) -> str:
        from ..state.url import redact

        return repr(redact(str(self)))


def checked_port(value: int) -> int:
    """``port``: 0 (any free port) to 65535; a bool is refused (True is not port 1)."""
    if isinstance(value, bool) or not 0 <= value <= 65535:
        shown = f"the bool {value}" if isinstance(value, bool) else shown_value(value)
        raise TraitError(f"NanohubMCP.port must be between 0 and 65535 (0 = any free port), not {shown}")
    return int(value)


def checked_token(value: str | None) -> str | None:
    """``token``: None (the default) and ``""`` (authorization off) as they are, any other by the rule every
    server's static token follows, kept as a :class:`HiddenToken`."""
    from ..auth.verifiers import checked_token as server_rule

    if not value:
        return value
    try:
        return HiddenToken(server_rule(value, "the token in the c.NanohubMCP.token setting"))
    except ConfigurationError as exc:
        raise TraitError(str(exc)) from None


def hidden_password(value: str | None) -> str | None:
    """``state_url``: kept as a :class:`HiddenPassword` (None and ``""`` as they are)."""
    return HiddenPassword(value) if value else value


def checked_state_dir(value: str | None) -> str | None:
    """``state_dir``: refused as ``MCPServer(state_dir=)`` refuses it (a file, for one), in one line."""
    from ..server.options import check_state_dir

    try:
        check_state_dir(value, "NanohubMCP.state_dir")
    except ConfigurationError as exc:
        raise TraitError(str(exc)) from None
    return value


def checked_value(name: str, value: float | None) -> float | None:
    """``tool_timeout`` or ``figure_dpi`` (``name``), by the one rule ``MCPServer(tool_timeout=)`` /
    ``MCPServer(figure_dpi=)`` follows, so the exported script starts with whatever the notebook took."""
    from ..server.options import checked_dpi, checked_timeout

    try:
        return (checked_timeout if name == "tool_timeout" else checked_dpi)(value)
    except ConfigurationError as exc:
        raise TraitError(f"NanohubMCP.{exc}") from None


def checked_switch(value: float | None) -> float | None:
    """``switch_interval``: seconds from :data:`MIN_SWITCH_SECONDS` to :data:`MAX_SWITCH_SECONDS` (NaN refused), or
    None."""
    if value is not None and not MIN_SWITCH_SECONDS <= value <= MAX_SWITCH_SECONDS:  # NaN too (any real number)
        raise TraitError(f"NanohubMCP.switch_interval must be a number of seconds from {MIN_SWITCH_SECONDS:f} "
                         f"to {MAX_SWITCH_SECONDS}, or None to leave the interpreter's alone, not "
                         f"{shown_value(value)}")
    return None if value is None else float(value)


def checked_limit_pair(name: str, value: int | None, limits: Mapping[str, int | None]) -> int | None:
    """``max_request_bytes``, ``max_buffered_bytes`` or ``max_buffered_bytes_per_principal`` (``name``) set to
    ``value``, the three in force being ``limits``: ``max_buffered_bytes`` and a set
    ``max_buffered_bytes_per_principal`` at least ``max_request_bytes``, as ``run()`` requires. The message says
    which to change first."""
    if value is None:
        return None  # max_buffered_bytes_per_principal's default: derived from the others, always large enough
    value = int(value)
    bounds = {**limits, name: value}
    request = bounds.pop("max_request_bytes")
    for other, bound in bounds.items():
        if bound is not None and request is not None and bound < request:
            if name == "max_request_bytes":
                why = (f"max_request_bytes = {_as_set(value)} is above NanohubMCP.{other} "
                       f"({_as_set(bound)})",
                       f"raise {other} first, then max_request_bytes")
            else:
                why = (f"{other} = {_as_set(value)} is below NanohubMCP.max_request_bytes "
                       f"({_as_set(request)})",
                       f"lower max_request_bytes first, then {other}")
            raise TraitError(f"NanohubMCP.{why[0]}; {other} must be at least max_request_bytes: {why[1]}")
    return value


def _as_set(limit: int) -> str:
    """A limit as its ``%config`` line likely wrote it: the int a float holds as that float (``1e+31``, not
    ``9999999999999999635896294965248``, the float's digits) when that is shorter, else its digits."""
    try:
        as_float = float(limit)
    except OverflowError:
        return shown_value(limit)
    shorter = as_float == limit and len(repr(as_float)) < len(str(abs(limit)))
    return repr(as_float) if shorter and abs(limit) >= 10**16 else shown_value(limit)


def checked_url_part(name: str, value: str | None) -> str | None:
    """``path_prefix`` or ``public_url`` (``name``), checked as ``nanohubmcp run``'s ``--path-prefix`` /
    ``--public-url`` are; ``""`` (the root) and None (the detected URL) as they are."""
    from ..transports.proxy_option import path_prefix, public_url

    if not value:
        return value
    try:
        (path_prefix if name == "path_prefix" else public_url)(value)
    except argparse.ArgumentTypeError as exc:
        raise TraitError(f"NanohubMCP.{name}: {exc}") from None
    return str(value)


def checked_name(value: object) -> str:
    """``name``: any text but a blank one."""
    if not str(value).strip():
        raise TraitError("NanohubMCP.name must not be empty")
    return str(value)


CHECKS: dict[str, Callable[[Any], object]] = {
    "port": checked_port,
    "token": checked_token,
    "state_url": hidden_password,
    "state_dir": checked_state_dir,
    "tool_timeout": partial(checked_value, "tool_timeout"),
    "figure_dpi": partial(checked_value, "figure_dpi"),
    "switch_interval": checked_switch,
    "path_prefix": partial(checked_url_part, "path_prefix"),
    "public_url": partial(checked_url_part, "public_url"),
    "name": checked_name,
}
"""The check of each setting judged by its value alone, by the setting's name (the limits judged together:
:func:`checked_limit_pair`)."""
