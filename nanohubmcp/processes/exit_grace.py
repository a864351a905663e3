"""The exit grace: how long a blocking serve's process takes at most to exit once its stop began, a setting.

``MCPServer.run(exit_grace=...)`` and ``nanohubmcp run --exit-grace SECONDS`` give it; 10 s by default. It is what
a process supervisor (systemd's ``TimeoutStopSec``, Slurm, a container runtime's stop timeout) counts on after it sent
SIGTERM, and what the stop shares out (:mod:`.process_exit`, :mod:`.exit_watch`): running calls' drain, the wait for
sync calls, the exit watchdog that ends a process whose event loop a tool blocks; a process the ``nanohubmcp`` command
serves then ends without freeing its heap (:mod:`.process_end`), so its exit too is within the grace. A
``--workers`` parent kills a worker still running :data:`KILL_AFTER_GRACE_SECONDS` past it (:func:`kill_wait`). Only
the protocol's reading of a number is imported here (``argparse`` by the command line's option alone:
``MCPServer`` imports this module): the command line checks its option with the one rule (:func:`checked_exit_grace`)
before the app is imported.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from ..protocol.seconds import seconds_of, written_as_a_number
from ..protocol.whole_numbers import text_number, text_number_refusal

__all__ = ["DEFAULT_EXIT_GRACE_SECONDS", "KILL_AFTER_GRACE_SECONDS", "MAX_EXIT_GRACE_SECONDS",
           "MIN_EXIT_GRACE_SECONDS", "checked_exit_grace", "exit_grace_option", "kill_wait"]

DEFAULT_EXIT_GRACE_SECONDS = 10.0
"""The exit grace when none is given, in seconds."""
MIN_EXIT_GRACE_SECONDS = 2.0
"""The shortest exit grace: a second for the notice that the event loop does not answer
(:data:`~.exit_watch.NOTICE_SECONDS`), then the second the process keeps for its own exit
(:data:`~.process_exit.EXIT_MARGIN_SECONDS`). Shorter, the notice would come after the drain's end."""
MAX_EXIT_GRACE_SECONDS = 86400.0
"""The longest exit grace: a day. A stop is no longer one past it (and the watchdog's timer stays far within what a
thread's wait takes)."""
KILL_AFTER_GRACE_SECONDS = 5.0
"""How long past the exit grace a ``--workers`` parent told to stop waits for a worker before it kills it (SIGKILL):
the backstop for a worker whose own watchdog never heard the signal (a tool made it ignore SIGTERM)."""
_WHAT_IT_TAKES = (f"a number of seconds from {MIN_EXIT_GRACE_SECONDS:g} to {MAX_EXIT_GRACE_SECONDS:g} (how long a "
                  f"stopping process takes at most to exit; default {DEFAULT_EXIT_GRACE_SECONDS:g})")


def checked_exit_grace(value: object, option: str = "exit_grace") -> float:
    """``value`` as the exit grace in seconds: any real number
    (:func:`~nanohubmcp.protocol.seconds.seconds_of`) from :data:`MIN_EXIT_GRACE_SECONDS` to
    :data:`MAX_EXIT_GRACE_SECONDS` (2 to 86400); None, a bool, a string, NaN or infinity is refused (a stop
    that may last for ever is no bound a supervisor can count on).

    Raises:
        ConfigurationError: naming ``option``, what it takes and the value, in one line.

    Example:
        >>> checked_exit_grace(2), checked_exit_grace(30.5)
        (2.0, 30.5)
    """
    seconds = seconds_of(value)
    if seconds is None or not MIN_EXIT_GRACE_SECONDS <= seconds <= MAX_EXIT_GRACE_SECONDS:  # NaN is in no range
        raise ConfigurationError(f"{option} must be {_WHAT_IT_TAKES}, not {shown_value(value)}"
                                 f"{written_as_a_number(value)}")
    return seconds


def exit_grace_option(text: str) -> float:
    """``--exit-grace SECONDS`` (argparse type): :func:`checked_exit_grace` of the number ``text`` writes, read by
    the one rule of every option's number (:func:`~nanohubmcp.protocol.whole_numbers.text_number`: ASCII digits,
    no ``_``); refused as typed: "must be a number of seconds from 2 to 86400 (...), not '1e400'"."""
    import argparse  # (a command line's alone: importing nanohubmcp loads no argparse)

    number = text_number(text)
    try:
        return checked_exit_grace(number)
    except ConfigurationError:  # (argparse names the option: the line says the text as typed, 1e400 not inf)
        raise argparse.ArgumentTypeError(text_number_refusal(_WHAT_IT_TAKES, text)) from None


def kill_wait(grace: float) -> float:
    """How long a ``--workers`` parent told to stop waits for its workers, whose exit grace is ``grace`` seconds,
    before it kills those still running: ``grace`` plus :data:`KILL_AFTER_GRACE_SECONDS` (15 s by default)."""
    return grace + KILL_AFTER_GRACE_SECONDS
