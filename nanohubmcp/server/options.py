"""The server core's options: their checks and defaults, before anything is built.

Owns :func:`check_options` (every option of ``ServerCore`` that can be wrong on its own, each
refusal a :class:`~nanohubmcp.errors.ConfigurationError` naming the option), the worker pool's
default size, and what two options mean for a protocol version: ``argument_errors``
(:func:`argument_errors_are_protocol_errors`) and ``list_changed`` with the capabilities the
server advertises (:func:`capabilities_for`). What the options do is the core's and its
services'; the job executors' options are :mod:`.executors.runners`', the state store's
:mod:`nanohubmcp.state.url`'s.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

from ..errors import ConfigurationError
from ..protocol.byte_limits import BYTE_LIMITS, refusal
from ..protocol.counts import counted
from ..protocol.message_values import shown_value
from ..protocol.seconds import limit_seconds, seconds_of, written_as_a_number
from ..protocol.versions import ProtocolVersion
from ..protocol.whole_numbers import is_infinity, whole_number
from ..state.url import file_on_the_way
from .jobs import STORE_KINDS

__all__ = [
    "ARGUMENT_ERRORS",
    "MIN_TOOL_TIMEOUT_SECONDS",
    "argument_errors_are_protocol_errors",
    "capabilities_for",
    "check_options",
    "check_state_dir",
    "checked_byte_limit",
    "checked_dpi",
    "checked_timeout",
    "default_workers",
    "plain_seconds",
]

ARGUMENT_ERRORS = ("auto", "protocol", "tool")
"""The values of ``argument_errors`` (see ``ServerCore``)."""


def default_workers() -> int:
    """``min(32, cpu_count + 4)``, the worker pool size (``concurrent.futures.ThreadPoolExecutor``'s default)."""
    return min(32, (os.cpu_count() or 1) + 4)


MIN_DURATION_SECONDS = 0.001
"""The shortest duration option: a millisecond, the unit a task's ttl is answered in."""
MAX_DURATION_SECONDS = 10 * 365.25 * 86400
"""The longest duration option (``job_ttl_seconds``): ten years. Longer values reach no use, and a time
that far ahead no longer fits the stores' 64-bit numbers (``10**20`` seconds failed every job call)."""


def check_options(
    name: object,
    *,
    argument_errors: str,
    figure_dpi: float | None,
    byte_limits: dict[str, object],
    job_store: str,
    counts: dict[str, object] | None = None,
    durations: dict[str, object] | None = None,
    state_dir: object = None,
    switches: dict[str, object] | None = None,
) -> dict[str, int | None]:
    """Refuse an option of ``ServerCore`` that cannot be used as given (``byte_limits``: option name (a key of
    :data:`~nanohubmcp.protocol.byte_limits.BYTE_LIMITS`) -> a whole number of bytes; ``counts``: option name (a
    key of :data:`~nanohubmcp.protocol.counts.COUNTS`) -> a whole number of what it counts; each read as ``%config
    NanohubMCP`` reads it; ``durations``: option name -> a positive number of seconds, at most
    :data:`MAX_DURATION_SECONDS`; ``state_dir``: a path with no NUL, or None; ``switches``: option name -> True or
    False, nothing else: ``"false"`` or 0 could be meant either way).

    Returns:
        ``byte_limits`` and ``counts`` with each value an int (``1e5``, numpy's ``int64(100)`` -> ``100000``,
        ``100``), or None.

    Raises:
        ConfigurationError: naming the option, what it takes and the value (and, where it reads as a number, what
            to write: "max_jobs must be a number of jobs >= 1, not 5.5; write a whole number: 6").
    """
    if not isinstance(name, str) or not name:
        raise ConfigurationError("MCPServer needs a non-empty name, e.g. MCPServer('my-calculator')")
    if argument_errors not in ARGUMENT_ERRORS:
        raise ConfigurationError(f"argument_errors must be one of {', '.join(ARGUMENT_ERRORS)}")
    taken = {option: counted(option, value) for option, value in (counts or {}).items()}
    taken.update({option: checked_byte_limit(option, value) for option, value in byte_limits.items()})
    checked_dpi(figure_dpi)
    check_state_dir(state_dir)
    if job_store not in STORE_KINDS:
        raise ConfigurationError(f"job_store must be one of {', '.join(STORE_KINDS)}, not {shown_value(job_store)}")
    for option, value in (durations or {}).items():
        seconds = seconds_of(value)  # any real number (numpy's int64 as well as its float64), never a bool
        if seconds is None or not MIN_DURATION_SECONDS <= seconds <= MAX_DURATION_SECONDS:
            raise ConfigurationError(f"{option} must be a positive number of seconds, at least 0.001 (a task's "
                                     f"ttl is whole milliseconds) and at most {MAX_DURATION_SECONDS:,.0f} (ten "
                                     f"years), not {shown_value(value)}")
    for option, value in (switches or {}).items():
        if type(value) is not bool:
            raise ConfigurationError(f"{option} must be True or False, not {shown_value(value)}")
    return taken


def checked_byte_limit(option: str, value: object) -> int | None:
    """The byte limit ``option`` (a key of :data:`~nanohubmcp.protocol.byte_limits.BYTE_LIMITS`) set to ``value``,
    as an int (any whole number: ``5.0``, ``1e30``, numpy's ``int64``), or None where it takes None (and then for
    ``float("inf")`` too: no limit).

    Raises:
        ConfigurationError: no whole number, or below the least: "max_inline_bytes must be a number of bytes >= 0,
            or None to always inline, not 5.5; write a whole number: 6".
    """
    least, none = BYTE_LIMITS[option]
    if none and (value is None or is_infinity(value)):
        return None
    number = whole_number(value)
    if number is None or number < least:
        raise ConfigurationError(refusal(option, value))
    return number


def check_state_dir(value: object, option: str = "state_dir", *, variable: bool = False) -> None:
    """Refuse a state directory holding a NUL byte, which no directory name can hold (every job and cached
    call failed later, "embedded null byte", as for a sqlite URL's ``%00``), or naming an existing file or a
    path under one (the cached results, provenance records and jobs were kept in memory, lost at the stop,
    as for a sqlite URL naming a file); None or any other path passes.

    Raises:
        ConfigurationError: naming ``option`` and the value, in one line; with ``variable`` (``option`` is the
            environment variable that named it) its :attr:`~ConfigurationError.variable` is ``option``, so a
            script's ``MCPServer(...)`` that nothing catches ends in that one line.
    """
    if not isinstance(value, (str, bytes, os.PathLike)):
        return
    text = os.fsdecode(value)
    error = None
    if "\0" in text:
        error = ConfigurationError(f"{option} {value!r} holds a NUL byte, which no directory name can hold")
    elif text and (blocking := file_on_the_way(os.path.abspath(os.path.expanduser(text)))) is not None:
        error = ConfigurationError(f"{option} {text!r}: {blocking!r} is a file, not a directory; name a directory "
                                   "for the cached results, provenance records and jobs (made if missing)")
    if error is not None:
        error.variable = option if variable else None
        raise error


def plain_seconds(value: float) -> float:
    """A duration :func:`check_options` took, as a Python ``int`` or ``float`` (``numpy.int64(60)`` -> ``60``):
    job records keep it in JSON, which takes no numpy number."""
    return int(value) if isinstance(value, numbers.Integral) else float(value)


MIN_TOOL_TIMEOUT_SECONDS = 0.001
"""The shortest ``tool_timeout``: a millisecond, as :data:`MIN_DURATION_SECONDS`. The event loop times its waits in
whole milliseconds (asyncio rounds an ``epoll`` wait up to the next one), so a shorter limit is not kept as given,
and a call could not even be started and answered within it: such a value is a mistake (``1e-300``, seconds
written for milliseconds the other way round), refused rather than read as "time out at once"."""


def checked_timeout(value: object, option: str = "tool_timeout") -> float | None:
    """``value`` as a call time limit in seconds, None for no limit: the one rule of ``MCPServer(tool_timeout=)``
    and ``NanohubMCP.tool_timeout`` (``%config`` and the export), by
    :func:`~nanohubmcp.protocol.seconds.limit_seconds`: None, ``float("inf")`` and a number past any wait
    (``1e308``, ``10**400``) mean no limit; any other value must be a real number
    of at least :data:`MIN_TOOL_TIMEOUT_SECONDS` (0, a negative
    number, NaN, a bool or a string such as ``"5"`` is refused: 0 could be read as "time out at once" as well as
    "no limit"; so is ``1e-300``, below what the event loop can time).

    Raises:
        ConfigurationError: naming ``option`` and the value, and what it takes.
    """
    seconds = limit_seconds(value, option, ConfigurationError)  # None, inf, past any wait (1e308): no limit
    if seconds is not None and seconds < MIN_TOOL_TIMEOUT_SECONDS:
        raise ConfigurationError(
            f"{option} must be at least {MIN_TOOL_TIMEOUT_SECONDS:g} s (a millisecond: the event loop times no "
            f"shorter wait), or None for no limit, not {shown_value(value)}")
    return seconds


MIN_FIGURE_DPI = 1
"""The lowest ``figure_dpi``: below a dot per inch a figure of a few inches has no pixels to write
("cannot write empty image")."""
MAX_FIGURE_DPI = 2400
"""The highest ``figure_dpi``, twice a photo printer's 1200: a 6.4 x 4.8 in figure (matplotlib's default) is then
15360 x 11520 pixels (about 700 MB drawn); at 10**6 dpi drawing it ran out of memory (``std::bad_alloc``)."""


def checked_dpi(value: object, option: str = "figure_dpi") -> float | None:
    """``value`` as the dots per inch figures are drawn at, None for each figure's own: the one rule of
    ``MCPServer(figure_dpi=)`` and ``NanohubMCP.figure_dpi``. Any real number from :data:`MIN_FIGURE_DPI` to
    :data:`MAX_FIGURE_DPI` (1 to 2400) is taken; a bool, a string, NaN or a number outside the range is refused.

    Raises:
        ConfigurationError: naming ``option`` and the value (cut to 60 characters).
    """
    if value is None:
        return None
    dpi = seconds_of(value)  # the one reading of a real number (numpy's too, never a bool), not only of seconds
    if dpi is None or not MIN_FIGURE_DPI <= dpi <= MAX_FIGURE_DPI:  # NaN is in no range
        raise ConfigurationError(f"{option} must be a number of dots per inch from {MIN_FIGURE_DPI} to "
                                 f"{MAX_FIGURE_DPI}, or None for each figure's own, not {shown_value(value)}"
                                 f"{written_as_a_number(value)}")
    return dpi


def argument_errors_are_protocol_errors(mode: str, version: str) -> bool:
    """Whether invalid tool arguments are a JSON-RPC -32602 under the ``argument_errors`` ``mode``
    for ``version``: always with ``"protocol"``, never with ``"tool"``, and with ``"auto"`` up
    to 2025-06-18 (``isError`` content from 2025-11-25, SEP-1303)."""
    if mode == "protocol":
        return True
    if mode == "tool":
        return False
    allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
    return not allows.argument_errors_as_tool_errors


def capabilities_for(version: str, *, list_changed: bool) -> dict[str, Any]:
    """The server capabilities advertised to a client of ``version`` (MCP § Lifecycle § Capability
    negotiation): tools, resources (with subscriptions), prompts and logging, each with
    ``listChanged`` as ``list_changed`` says; completions and tasks where ``version`` has them."""
    changed = list_changed
    caps: dict[str, Any] = {
        "tools": {"listChanged": changed},
        "resources": {"subscribe": True, "listChanged": changed},
        "prompts": {"listChanged": changed},
        "logging": {},
    }
    allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
    if allows.completions:
        caps["completions"] = {}
    if allows.tasks:
        caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    return caps
