"""The one reading of "a number of seconds" a user or a tool gives: a setting's duration (``job_ttl_seconds``,
``tool_timeout``, an executor's ``poll_interval``) or a wait a tool's result names (``Retry-After``).

Any real number is one: an ``int`` or ``float``, a ``Fraction``, numpy's ``int64`` or ``float64``; never a
bool (``True`` is no duration) nor a string. One past a float's range (``10**400``, ``Fraction(10**400)``,
which ``float()`` refuses with ``OverflowError``) is finite and that large: read as infinity with its sign,
so each caller's range check refuses or caps it as it does any other too large value. Pure: no I/O.
"""

from __future__ import annotations

import math
import numbers
import threading
from typing import cast

from .message_values import shown_value
from .whole_numbers import is_a_bool, plain_number_text, plain_spelling

__all__ = ["MOST_WAIT_SECONDS", "NO_LIMIT_TAKES", "limit_or_default", "limit_seconds", "past_any_wait", "seconds_of",
           "written_as_a_number"]

MOST_WAIT_SECONDS: float = threading.TIMEOUT_MAX
"""The longest wait the runtime takes (``threading.TIMEOUT_MAX``: 2**63 ns, about 292 years, on Linux; 49 days on
Windows): a thread's wait (``Event.wait``, ``Future.result``) refuses a longer one with ``OverflowError``,
jupyter_client polls a kernel's reply (a Sim2L cell's limit) in milliseconds, Redis an expiry in whole seconds. A
time limit past it is no limit."""

NO_LIMIT_TAKES = "a positive number of seconds, or None for no limit"
"""What a time limit that may have none takes, as its refusals say it."""


def seconds_of(value: object) -> float | None:
    """``value`` as a float, or None when it is no real number (a bool, a string, None, a ``Decimal``).

    Returns:
        ``float(value)``; ``math.inf`` (``-math.inf``) for one past a float's range; NaN stays NaN (within no
        range: a caller's ``least <= seconds <= most`` refuses it).

    Example:
        >>> seconds_of(2), seconds_of(10**400), seconds_of(True)
        (2.0, inf, None)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except OverflowError:  # (an int or Fraction past a float's range: finite, and long)
        return math.inf if cast(float, value) > 0 else -math.inf  # (every Real compares with 0)


def past_any_wait(seconds: float) -> bool:
    """Whether ``seconds`` (a float, inf too) is longer than any wait can be (:data:`MOST_WAIT_SECONDS`): no limit."""
    return seconds > MOST_WAIT_SECONDS


def limit_seconds(value: object, setting: str, error: type[Exception] = ValueError) -> float | None:
    """``value`` as a time limit in seconds, None for no limit: the one rule of every duration that may have none
    (``tool_timeout``, ``cache_ttl``, ``cell_timeout``, an ask's ``timeout=``, the test client's ``timeout=``; a
    Rappture tool's ``timeout``, whose None is its tool's own limit, by :func:`limit_or_default`).

    Any real number above 0 (:func:`seconds_of`: an int, a float, a ``Fraction``, numpy's) is taken. None,
    ``float("inf")`` and any number longer than a wait can be (:func:`past_any_wait`: ``1e308``, ``2**62``,
    ``10**400``) are no limit.

    Returns:
        A float from above 0 to :data:`MOST_WAIT_SECONDS`, or None.

    Raises:
        error: ``value`` is no real number (a bool, a string, a ``Decimal``), 0 or less, or NaN, in one line
            naming ``setting``: "timeout must be a positive number of seconds, or None for no limit, not '5';
            write it as a number: 5.0".

    Example:
        >>> limit_seconds(2, "timeout"), limit_seconds(10**400, "timeout"), limit_seconds(1e308, "timeout")
        (2.0, None, None)
    """
    if value is None:
        return None
    seconds = seconds_of(value)
    if seconds is None or not seconds > 0:  # NaN is not > 0
        raise error(f"{setting} must be {NO_LIMIT_TAKES}, not {shown_value(value)}{written_as_a_number(value)}")
    return None if past_any_wait(seconds) else seconds


def limit_or_default(value: object, setting: str, error: type[Exception] = ValueError) -> float | None:
    """``value`` as a time limit whose leaving out is a default limit, not none (a Rappture tool's ``timeout``,
    whose default is the tool's own ``<limits><cputime>``): :func:`limit_seconds`'s rule, with what it reads as
    no limit (``inf``, a number past any wait: ``1e308``, ``10**400``) said as ``math.inf``.

    Returns:
        None when ``value`` is None (the default limit stands); ``math.inf`` for no limit; else a float from
        above 0 to :data:`MOST_WAIT_SECONDS`.

    Raises:
        error: ``value`` is no real number, 0 or less, or NaN: "timeout must be a positive number of seconds,
            or inf for no limit, not 0".
    """
    if value is None:
        return None
    try:
        seconds = limit_seconds(value, setting, error)
    except Exception as exc:
        raise error(str(exc).replace(NO_LIMIT_TAKES, "a positive number of seconds, or inf for no limit")) from None
    return math.inf if seconds is None else seconds


def bound_or_default(value: object, setting: str, default: str, error: type[Exception] = ValueError) -> float | None:
    """``value`` as a bound in seconds whose leaving out is ``default`` (words for the refusal: "the stop's own steps
    (2 s each)"): :func:`limit_seconds`'s rule, with None, ``inf`` and a number past any wait meaning the default.

    Raises:
        error: ``value`` is no real number, 0 or less, or NaN: "within must be a positive number of seconds, or
            None for the stop's own steps (2 s each), not 0".
    """
    try:
        return limit_seconds(value, setting, error)
    except Exception as exc:
        raise error(str(exc).replace(NO_LIMIT_TAKES, f"a positive number of seconds, or None for {default}")) from None


def written_as_a_number(value: object) -> str:
    """For the refusal of ``value``, no real number (a ``Decimal``, a string such as ``"0.0005"``), that reads as
    one: ``"; write it as a number: 0.0005"``, or for text the numbers rule refuses (:func:`.plain_number_text`)
    ``"; write it in ASCII digits: 3"`` (an Arabic-Indic three) or ``"; write it without '_'"``; else ``""`` (a bool,
    Python's or numpy's, None, text that is no number).

    Example:
        >>> written_as_a_number("0.0005"), written_as_a_number(True)
        ('; write it as a number: 0.0005', '')
    """
    if is_a_bool(value) or isinstance(value, numbers.Real) or value is None:
        return ""  # (numpy's bool too: "write it as a number: 1.0" would read a bool as a number)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return ""
    if isinstance(value, str) and not plain_number_text(value):
        return plain_spelling(value)  # as the command line says it
    return f"; write it as a number: {number!r}" if math.isfinite(number) else ""
