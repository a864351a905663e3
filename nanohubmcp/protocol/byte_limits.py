"""The one rule for the server's byte limits (``max_inline_bytes``, ``max_result_bytes``, ``max_kept_bytes``, ...),
read alike by ``MCPServer(...)`` and by ``%config NanohubMCP`` (and so by a notebook's export): what each takes, which
values are a whole number of bytes, and how a refusal reads.

A limit takes any whole number as an int: an integer (numpy's ``int64`` too) and a real number holding a whole
number (``5.0``, ``1e5``, ``1e30``). A bool (numpy's too), a real number that is not whole (``5.5``,
``Fraction(7, 2)``), a string and a ``Decimal`` are refused in one line naming the setting, what it takes, the value
and, where it reads as a number, what to write. Nothing is imported here beyond the standard library.
"""

from __future__ import annotations

import math
import numbers
import operator

from .message_values import shown_value

__all__ = ["BYTE_LIMITS", "is_a_bool", "refusal", "takes", "whole_fraction", "whole_number", "written_whole"]

BYTE_LIMITS: dict[str, tuple[int, str]] = {
    "max_inline_bytes": (0, ", or None to always inline"),
    "max_result_bytes": (1, ", or None for no limit"),
    "max_kept_bytes": (1, ""),
    "max_kept_bytes_per_owner": (1, ""),
    "max_job_result_bytes": (1, ""),
    "cache_max_bytes": (1, ""),
}
"""``MCPServer``'s byte limits -> (the least value, what None means: "" where None is refused)."""


def takes(setting: str) -> str:
    """What the byte limit ``setting`` (a key of :data:`BYTE_LIMITS`) takes, as its refusals say it:
    ``"a number of bytes >= 0, or None to always inline"``."""
    least, none = BYTE_LIMITS[setting]
    return f"a number of bytes >= {least}{none}"


def is_a_bool(value: object) -> bool:
    """Whether ``value`` is a bool, Python's or numpy's (``np.True_``, which is neither an int nor a real number)."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def whole_number(value: object) -> int | None:
    """``value`` as an int when it is a whole number: an integer (numpy's too) or a real number holding one
    (``5.0``, ``1e30``, ``Fraction(10, 1)``); None for anything else (a bool, ``5.5``, NaN, inf, a string, a
    ``Decimal``, None).

    Example:
        >>> whole_number(1e5), whole_number(5.5), whole_number(True)
        (100000, None, None)
    """
    if is_a_bool(value) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    try:
        number = float(value)
    except OverflowError:  # (a Fraction past a float's range: whole if its denominator is 1)
        return whole_fraction(value)
    if math.isfinite(number) and number.is_integer():
        return whole_fraction(value) if isinstance(value, numbers.Rational) else int(number)
    return None


def whole_fraction(value: object) -> int | None:
    """A ``Fraction`` (any rational) with denominator 1 as its int, exactly (past a float's range too); else None."""
    if isinstance(value, numbers.Rational) and value.denominator == 1:
        return operator.index(value.numerator)
    return None


def written_whole(value: object) -> str:
    """For the refusal of ``value`` by a byte limit, what to write where it reads as a number: ``"; write it as a
    number: 5"`` (``Decimal("5")``, ``"5"``), ``"; write a whole number: 6"`` (``5.5``, ``Fraction(7, 2)``,
    rounded up); else ``""`` (a bool, None, NaN, inf, a negative number, a whole number (refused for its
    size), text that is no number).

    Example:
        >>> written_whole("100000"), written_whole(5.5), written_whole(True)
        ('; write it as a number: 100000', '; write a whole number: 6', '')
    """
    if is_a_bool(value) or value is None or whole_number(value) is not None:
        return ""  # (a whole number is refused for its size: what it takes says what to write)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return ""
    if not math.isfinite(number) or number < 0:
        return ""
    if number.is_integer():
        return f"; write it as a number: {int(number)}"
    return f"; write a whole number: {math.ceil(number)}"


def refusal(setting: str, value: object) -> str:
    """The refusal of ``value`` for the byte limit ``setting`` as ``MCPServer(...)`` says it: "max_inline_bytes must
    be a number of bytes >= 0, or None to always inline, not 5.5; write a whole number: 6"."""
    return f"{setting} must be {takes(setting)}, not {shown_value(value)}{written_whole(value)}"
