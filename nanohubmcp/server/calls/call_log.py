"""A call's log: the messages a function logs through its ``ctx``, kept and turned into notifications.

:class:`CallLog` checks each message's level (the eight of MCP, RFC 5424's severities), logs it on the
Python logger ``nanohubmcp.tool`` at the matching level (:data:`PY_LEVELS`), keeps the last
:data:`LOG_KEPT` for ``ctx.get_log_messages()``, and makes the ``notifications/message`` the client
asked for (``logging/setLevel``, or a 2026-07-28 request's ``_meta``): none below its level, none when it
asked for none. Sending it on the request's stream is the Context's (:mod:`.context`).
:func:`debug`, :func:`info`, :func:`warning` and :func:`error` are the shorthands of every ``ctx``, plain
functions a Context and the stand-in a job gets on another process (:mod:`nanohubmcp.server.executors.remote`)
each take as methods of the same names (no base class between them).

Source: MCP 2025-11-25, Server § Utilities § Logging.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Generator
from typing import Any, Protocol

from ...errors import notified_text
from ...protocol import jsonenc, jsonrpc
from ...protocol.nesting import MAX_JSON_DEPTH, nested_deeper_than
from ..wire.request import LOG_LEVELS

__all__ = [
    "LOGGED", "LOG_KEPT", "PY_LEVELS", "CallLog", "Logged", "Logs", "debug", "error", "info", "sendable", "warning",
]

log = logging.getLogger("nanohubmcp.tool")

LOG_KEPT = 1000
"""Log messages a Context keeps for ``get_log_messages()``."""
PY_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO, "warning": logging.WARNING,
             "error": logging.ERROR, "critical": logging.CRITICAL, "alert": logging.CRITICAL,
             "emergency": logging.CRITICAL}
"""The Python logging level each MCP level (RFC 5424 severities) is logged at on ``nanohubmcp.tool``."""


class Logged:
    """What a log method (and ``report_progress``) returns: nothing to wait for, but awaitable, so that ``await
    ctx.info(...)`` (the habit of FastMCP and the official SDK, whose log and progress methods are coroutines)
    works as ``ctx.info(...)`` does. The message was sent when the method returned; awaiting this does nothing."""

    __slots__ = ()

    def __await__(self) -> Generator[None, None, None]:
        return
        yield  # (a generator that ends at once)

    def __repr__(self) -> str:
        return "<logged>"


LOGGED = Logged()
"""The one :class:`Logged`."""


class Logs(Protocol):
    """What the level shorthands call: a ``ctx`` with ``log(level, message, **data)``."""

    @property
    def log(self) -> Callable[..., object]:
        """``log(level, message, **data)``."""
        ...


# The debug/info/warning/error shorthands of every ``ctx``, plain functions both contexts take as their methods
# (``info = call_log.info`` in the class body): a Context and the stand-in a job gets on another process.
def debug(self: Logs, message: str, **data: Any) -> Logged:
    """Log at debug level (a plain call; awaiting what it returns does nothing)."""
    self.log("debug", message, **data)
    return LOGGED


def info(self: Logs, message: str, **data: Any) -> Logged:
    """Log at info level (a plain call; awaiting what it returns does nothing)."""
    self.log("info", message, **data)
    return LOGGED


def warning(self: Logs, message: str, **data: Any) -> Logged:
    """Log at warning level (a plain call; awaiting what it returns does nothing)."""
    self.log("warning", message, **data)
    return LOGGED


def error(self: Logs, message: str, **data: Any) -> Logged:
    """Log at error level (a plain call; awaiting what it returns does nothing)."""
    self.log("error", message, **data)
    return LOGGED


class CallLog:
    """What one call logged (the last :data:`LOG_KEPT` messages), and the notifications it owes.

    Args:
        logger: the ``logger`` a notification names when the function names none (the server's name).
    """

    __slots__ = ("_kept", "_logger")

    def __init__(self, logger: str) -> None:
        self._logger = logger
        self._kept: deque[dict[str, Any]] = deque(maxlen=LOG_KEPT)

    def add(self, level: str, message: str, logger: str | None, data: dict[str, Any],
            wanted: str | None) -> dict[str, Any] | None:
        """Log and keep ``message``; the ``notifications/message`` to send when ``wanted`` (the level
        the client asked for, None: no messages) lets ``level`` through, else None.

        Raises:
            ValueError: ``level`` is not one of MCP's eight (the message names them).
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        log.log(PY_LEVELS[level], "%s", message)
        self._kept.append({"level": level, "message": message, **({"data": data} if data else {})})
        if wanted is None or LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted):
            return None
        sent = notified_text(message)  # (one SSE event stays within a client's cap: notified_text)
        payload: Any = {"message": sent, **sendable(data)} if data else sent
        params = {"level": level, "logger": logger or self._logger, "data": payload}
        return jsonrpc.notification("notifications/message", params)

    def messages(self) -> list[dict[str, Any]]:
        """The messages kept, oldest first: ``{"level", "message", "data"?}`` each."""
        return list(self._kept)


def sendable(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a message's keyword values) as a notification can carry it: itself when JSON holds it
    within :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` levels (the dict of values is one;
    numpy and pandas values are written as in a tool's result), else a copy in which each value JSON
    has no form for (a set, a ``Path``, an object) is its ``str()``, inside dicts, lists and tuples too,
    a dict key that is no str, number, bool or None is its ``str()``, and a dict or list that would
    nest past the limit is its ``str()`` (the limit a tool's result is held to: a client's parser
    refuses deeper JSON, and with it the whole call): what the function logged reaches the client
    readable, never failing in the transport (as a job's log on a batch system already did). Runs in
    the calling thread: a sync tool's worker, and the event loop for an ``async def`` tool (which runs there
    and logs there: its ``data`` is written to JSON on the loop, as everything that tool does)."""
    try:
        text = jsonenc.dumps(data)
    except (TypeError, ValueError):  # (something JSON cannot hold, a circular reference, or too deep to walk)
        pass
    else:
        if not nested_deeper_than(text, MAX_JSON_DEPTH):
            return data
    return {key: _as_json(value, 2) for key, value in data.items()}


def _as_json(value: Any, depth: int) -> Any:
    """``value``, a dict or list of which would be at level ``depth``, as JSON holds it within the limit."""
    if isinstance(value, (dict, list, tuple)):
        if depth > MAX_JSON_DEPTH:
            return _text(value)
        if isinstance(value, dict):
            return {key if key is None or isinstance(key, (str, int, float)) else _text(key): _as_json(item, depth + 1)
                    for key, item in value.items()}
        return [_as_json(item, depth + 1) for item in value]
    if value is None or type(value) in (str, bool):
        return value
    try:  # (a numpy or pandas value: written as the lists and dicts it is, which count too)
        text = jsonenc.dumps(value)
    except (TypeError, ValueError):
        return _text(value)
    return _text(value) if nested_deeper_than(text, MAX_JSON_DEPTH - depth + 1) else value


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # (a __str__ of the tool's own that fails, a list too deep for its repr: the message still goes)
        return object.__repr__(value)
