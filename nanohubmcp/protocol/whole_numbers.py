"""The one reading of a setting that takes a whole number: a count (``max_jobs``, ``workers``, ``list_page_size``,
... :mod:`.counts`) or a number of bytes (:mod:`.byte_limits`), alike in ``MCPServer(...)``, ``run()`` and
``%config NanohubMCP`` (and so in a notebook's export).

Any whole number is taken as the int: an integer (numpy's ``int64`` too) and a real number holding a whole number
(``5.0``, ``1e3``, ``Fraction(10, 1)``, numpy's ``float64(5.0)``). A bool (numpy's too), a real number that is not
whole (``5.5``, ``Fraction(7, 2)``), NaN, an infinity, a string and a ``Decimal`` are not whole numbers; the
setting refuses them in one line naming itself, what it takes, the value and, where it reads as a number, what to
write (:func:`whole_refusal`). Only a limit whose None means "no limit" takes ``float("inf")``, as that None
(:func:`is_infinity`; :data:`.byte_limits.BYTE_LIMITS`). A command line's option or an environment variable gives
text, read by the same rule (:func:`whole_text`: ``"5"``, ``"5.0"``, ``"1e3"``). Nothing is imported here beyond the
standard library.
"""

from __future__ import annotations

import math
import numbers
import operator

from .message_values import shown_value

__all__ = ["MOST_DIGITS", "is_a_bool", "is_infinity", "whole_fraction", "whole_number", "whole_refusal", "whole_text",
           "written_whole"]


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


def is_infinity(value: object) -> bool:
    """Whether ``value`` is positive infinity: ``float("inf")``, ``1e400``, numpy's ``inf`` (never a bool, an int
    or a ``Fraction``: ``10**400`` is a whole number, finite and that large)."""
    if is_a_bool(value) or isinstance(value, numbers.Rational) or not isinstance(value, numbers.Real):
        return False
    return float(value) == math.inf


def written_whole(value: object) -> str:
    """For the refusal of ``value`` by a whole-number setting, what to write where it reads as a number: ``"; write
    it as a number: 5"`` (``Decimal("5")``, ``"5"``), ``"; write a whole number: 6"`` (``5.5``, ``Fraction(7, 2)``,
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


def whole_refusal(setting: str, takes: str, value: object) -> str:
    """The refusal of ``value`` by the whole-number ``setting``, which takes ``takes``, in one line: "max_jobs must
    be a number of jobs >= 1, not 5.5; write a whole number: 6"."""
    return f"{setting} must be {takes}, not {shown_value(value)}{written_whole(value)}"


MOST_DIGITS = 31
"""The most digits :func:`whole_text` makes an int of (``1e30``): past every setting (``1e999999999`` would take
minutes)."""


def whole_text(text: str) -> int | None:
    """A whole number written as text (an option's value, an environment variable's) as its int: ``"5"``,
    ``"5.0"``, ``"1e3"``, ``" 16e6 "`` (exact: never a float's neighbour); None for anything else (``"5.5"``,
    ``"inf"``, ``"nan"``, ``"True"``, ``""``).

    Raises:
        OverflowError: a whole number of more than :data:`MOST_DIGITS` digits written with an exponent
            (``"1e999999999"``).
    """
    try:
        return int(text)
    except ValueError:
        import decimal  # only for a value int() does not read (~2 ms of a command's start otherwise)
    try:
        number = decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    if number.adjusted() >= MOST_DIGITS:  # (adjusted: the exponent of the first digit)
        raise OverflowError(f"more than {MOST_DIGITS} digits")
    return int(number)
