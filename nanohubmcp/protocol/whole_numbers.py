"""The one reading of a setting that takes a whole number: a count (``max_jobs``, ``workers``, ``list_page_size``,
... :mod:`.counts`) or a number of bytes (:mod:`.byte_limits`), alike in ``MCPServer(...)``, ``run()`` and
``%config NanohubMCP`` (and so in a notebook's export).

Any whole number is taken as the int: an integer (numpy's ``int64`` too) and a real number holding a whole number
(``5.0``, ``1e3``, ``Fraction(10, 1)``, numpy's ``float64(5.0)``). A bool (numpy's too), a real number that is not
whole (``5.5``, ``Fraction(7, 2)``), NaN, an infinity, a string and a ``Decimal`` are not whole numbers; the
setting refuses them in one line naming itself, what it takes, the value and, where it reads as a number, what to
write (:func:`whole_refusal`). Only a limit whose None means "no limit" takes ``float("inf")``, as that None
(:func:`is_infinity`; :data:`.byte_limits.BYTE_LIMITS`). A command line's option or an environment variable gives
text, read by the same rule as a number written plainly (:func:`plain_number_text`: ASCII digits, a sign, a point,
an exponent; never full-width digits, as a Content-Length is read, nor ``_`` between digits, ``8_000``, which
Python's ``int()`` and ``float()`` take): a whole number by :func:`whole_text` (``"5"``, ``"5.0"``, ``"1e3"``), any
number (a number of seconds) by :func:`text_number`; refused in the same shape (:func:`text_refusal`). A port
(``run(port=...)``, :mod:`.port_numbers`) is the one setting that also takes a str, read as its ``--port`` and
``$MCP_PORT`` are: scripts written for 0.4.x pass ``os.environ["MCP_PORT"]`` to it. Nothing is imported here beyond
the standard library.
"""

from __future__ import annotations

import math
import numbers
import operator

from .message_values import shown_value

__all__ = ["MOST_DIGITS", "is_a_bool", "is_infinity", "plain_number_text", "plain_spelling", "text_number",
           "text_number_refusal", "text_refusal", "text_whole", "whole_fraction", "whole_number", "whole_refusal",
           "whole_text", "written_whole"]


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
    if isinstance(value, str) and plain_number_text(value):
        try:
            exact = whole_text(value)
        except OverflowError:
            return ""
        if exact is not None:  # as written: "1e31", not the float's 9999999999999999635896294965248
            return f"; write it as a number: {exact if len(str(abs(exact))) < 17 else value.strip()}"
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
    be a number of jobs >= 1, not 5.5; write a whole number: 6" (``setting`` "": "must be ...", for an option
    whose name argparse gives)."""
    return f"{setting} must be {takes}, not {shown_value(value)}{written_whole(value)}".lstrip()


def text_refusal(setting: str, takes: str, text: str) -> str:
    """The refusal of an option's or an environment variable's ``text`` by the whole-number ``setting``, in the
    shape of :func:`whole_refusal`, the text shown as written: "must be a number of processes >= 1, not '2.5';
    write a whole number: 3" (a whole number refused for its size says nothing more: ``takes`` says it).

    Example:
        >>> text_refusal("--workers", "a number of processes >= 1", " 2.5")
        "--workers must be a number of processes >= 1, not ' 2.5'; write a whole number: 3"
    """
    written = "" if text_whole(text) is not None else written_whole(text.strip())
    if written and not plain_number_text(text):  # (float() reads it, a setting does not)
        written = plain_spelling(text, written.rpartition(" ")[2])
    return f"{setting} must be {takes}, not {shown_value(text)}{written}".lstrip()


def plain_number_text(text: str) -> bool:
    """Whether ``text`` (an option's value, an environment variable's) keeps to what every setting's number may be
    written in: ASCII alone (the digits 0-9, a sign, a point, an exponent, spaces around it; ``inf`` and ``nan``
    where the setting takes them) and no ``_``. This is the one rule: Python's ``int()`` and ``float()`` also read
    any script's decimal digits (``"\\uff12\\uff10"``, a full-width 20) and ``_`` between digits (``"8_000"``,
    ``"1_0"``: 10, or a typo of 1?); a setting reads neither, as an HTTP Content-Length is read (RFC 9110 § 8.6).

    Example:
        >>> plain_number_text("1e3"), plain_number_text("\\uff12"), plain_number_text("8_000")
        (True, False, False)
    """
    return text.isascii() and "_" not in text


def plain_spelling(text: str, number: str | None = None) -> str:
    """What a refusal of ``text``, a number that :func:`plain_number_text` refuses and ``float()`` reads, says to
    write: ``"; write it in ASCII digits: 20"`` (a full-width 20; ``number`` when given, else ``text``'s digits in
    ASCII); ``"; write it without '_'"`` (``"1_0"``: 10, or 1, is the writer's to say)."""
    if text.isascii():
        return "; write it without '_'"
    written = number or "".join(str(int(char)) if char.isdecimal() else char for char in text.strip())
    return f"; write it in ASCII digits: {written}"


def text_number(text: str) -> float | None:
    """A number written as text (an option's value, an environment variable's) by :func:`plain_number_text`'s rule
    as its float: ``"2.5"``, ``" 1e3 "``, ``"inf"``, ``"nan"`` (the caller's range refuses what it does not take);
    None for anything else (``"soon"``, ``""``, a full-width ``"\\uff12\\uff10"``, ``"1_0"``).

    Example:
        >>> text_number("2.5e1"), text_number("\\uff12\\uff10"), text_number("1_0")
        (25.0, None, None)
    """
    if not plain_number_text(text):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def text_number_refusal(takes: str, text: str) -> str:
    """The refusal of the number ``text`` by an option (argparse names it) that takes ``takes``, in the shape of
    :func:`text_refusal`: "must be a positive number of seconds, not '\\uff12'; write it in ASCII digits: 2".

    Example:
        >>> text_number_refusal("a positive number of seconds", "1_0")
        "must be a positive number of seconds, not '1_0'; write it without '_'"
    """
    hint = ""
    if not plain_number_text(text):
        try:
            float(text)
        except ValueError:
            pass
        else:
            hint = plain_spelling(text)
    return f"must be {takes}, not {shown_value(text)}{hint}"


MOST_DIGITS = 4300
"""The most digits :func:`whole_text` makes an int of: Python's own limit on an int written as text
(``sys.int_info.default_max_str_digits``), so that the int can be written again (a child's command line); ``1e4299``
takes half a millisecond, ``1e999999999`` would take minutes. ``1e31`` is that int, as its 32 digits are."""


def whole_text(text: str) -> int | None:
    """A whole number written as text (an option's value, an environment variable's) in ASCII as its int: ``"5"``,
    ``"5.0"``, ``"1e3"``, ``" 16e6 "``, ``"0e999999999"`` (exact: never a float's neighbour); None for anything
    else (``"5.5"``, ``"inf"``, ``"nan"``, ``"True"``, ``""``, and by :func:`plain_number_text` full-width
    digits and ``"8_000"``, which Python's ``int()`` reads).

    Raises:
        OverflowError: a whole number of more than :data:`MOST_DIGITS` digits written with an exponent
            (``"1e999999999"``).
    """
    if not plain_number_text(text):
        return None
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
    if number and number.adjusted() >= MOST_DIGITS:  # (adjusted: the exponent of the first digit; 0e999 is 0)
        raise OverflowError(f"more than {MOST_DIGITS} digits")
    return int(number)


def text_whole(text: str) -> float | None:
    """:func:`whole_text` for an option that refuses what it does not take: the int, ``math.inf`` for a whole
    number too long to make an int of (``"1e31"``, ``"1e999999999"``: past every setting, refused as too large,
    never as "not a whole number"), None for no whole number.

    Example:
        >>> text_whole("4.0"), text_whole("1e999"), text_whole("2.5")
        (4, inf, None)
    """
    try:
        return whole_text(text)
    except OverflowError:
        return math.inf
