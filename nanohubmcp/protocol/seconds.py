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
from typing import cast

from .whole_numbers import is_a_bool

__all__ = ["seconds_of", "written_as_a_number"]


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


def written_as_a_number(value: object) -> str:
    """For the refusal of ``value``, no real number (a ``Decimal``, a string such as ``"0.0005"``), that reads as
    one: ``"; write it as a number: 0.0005"``; else ``""`` (a bool, Python's or numpy's, None, text that is no
    number).

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
    return f"; write it as a number: {number!r}" if math.isfinite(number) else ""
