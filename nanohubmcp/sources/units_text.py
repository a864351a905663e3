"""The one shape a client's number with units must have before pint (or Rappture's unit code) reads it.

pint reads unit text as arithmetic: ``"9**9**9 K"`` or ``"1 K**9**9**9"`` makes it raise 9 to the power
9**9, a big-integer power that holds the GIL for hours and ignores SIGTERM, so one call stalled the
whole server. Every number with units a client sends to a Sim2L or a Rappture tool is held to this shape
first, and refused with a :class:`UnitTextError` saying what is accepted:

- a finite number in ASCII digits: ``300``, ``-1.5``, ``.5``, ``1e18`` (Rappture's ``1d18`` too); not
  ``nan`` or ``inf``, not one beyond a double's range (``1e999``), not one in another script's digits
  (``"\u0663"``, an Arabic-Indic 3, or a full-width ``"\uff13"``: "write it in ASCII digits: 3", the rule every
  setting's number keeps, :func:`~nanohubmcp.protocol.whole_numbers.plain_number_text`), and not a hexadecimal
  ``0x10``;
- then, optionally after spaces, units: unit names (a letter of any alphabet or ``°``, then letters,
  ASCII digits and ``_``, ending in at most one digit: Rappture reads ``cm3`` as cm³; or ``%``, ``‰``
  alone), joined by ``*``, ``/`` or spaces, grouped by parentheses at most :data:`MAX_DEPTH` deep; the
  number ``1`` may stand for a unit (``1/cm3``), and units may start with ``/`` (Rappture's ``1e15/cm3``);
- a power written ``^n`` or ``**n`` after a unit name or a closing parenthesis, ``n`` one digit with
  an optional sign (``cm^-3``, ``s**2``, ``m^(-1)``); never a power of a power (``K^2^3``), a
  power after a number, nor a power 0 (``K^0`` leaves no unit; pint fails on it);
- at most :data:`MAX_CHARS` characters in all.

So ``300K``, ``25 degC``, ``eV``-style names, ``cm^-3``, ``1/cm3``, ``9.81 m/s^2``, ``2 kg*m/s**2``,
``5 uW/cm2``, ``50 %`` pass; whether pint knows the units, and of which kind they are, is then the
caller's check. The module needs only the standard library: ``Rappture.Units`` uses it too.
"""

from __future__ import annotations

import json
import math
import re

from ..protocol.message_values import one_line

__all__ = [
    "ACCEPTED",
    "MAX_CHARS",
    "MAX_DEPTH",
    "UnitTextError",
    "check_quantity",
    "check_units",
    "code_points",
    "number_problem",
    "shown",
]

MAX_CHARS = 256
"""Longest text of a number with units (pint's parser takes time quadratic in the length)."""

MAX_DEPTH = 3
"""Deepest nesting of parentheses in units."""

ACCEPTED = (
    "write a number and then units: unit names joined by *, / or spaces, with parentheses, and a power "
    "written ^n or **n after a unit name or a parenthesis, n a single digit (-9 to 9); "
    "e.g. 300 K, 25 degC, 1e18/cm3, 9.81 m/s^2, 2 kg*m/s**2"
)
"""What the messages say is accepted."""

_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdD][-+]?\d+)?)", re.ASCII)
_NOT_FINITE = re.compile(r"\s*[-+]?(?:nan|inf)", re.IGNORECASE | re.ASCII)
_SIGNS = "%‰"
"""Unit names that are one sign."""
_DIGITS = "0123456789"
_ONE = re.compile(r"1(?![\d.])", re.ASCII)
_DIGITS_POWER = re.compile(r"[^\W\d_]\d\d+$")
"""A name's trailing digits Rappture reads as a power (``cm3`` is cm³): one digit at most."""
_EXPONENT = re.compile(r"\s*(?:[-+]?\d(?![\d.])|\(\s*[-+]?\d\s*\))", re.ASCII)
_HEXADECIMAL = re.compile(r"\s*[-+]?0[xX][0-9a-fA-F]", re.ASCII)
_SPACES = " \t\n\r\f\v"
"""What separates tokens (ASCII whitespace, as the patterns' ``\\s``)."""
_SHOWN = 40
"""Characters of a refused text quoted in its message."""


class UnitTextError(ValueError):
    """Text that is not a number with units of the accepted shape.

    Attributes:
        text: the text refused.
        problem: what is wrong with it (``"has a power of a power"``), without the text.
        advice: what to write instead: :data:`ACCEPTED`, or for a number in another script's digits
            ``"write it in ASCII digits: 3g"`` (:func:`number_problem`).
    """

    def __init__(self, text: str, problem: str, advice: str = ACCEPTED) -> None:
        self.text = text
        self.problem = problem
        self.advice = advice
        super().__init__(f"{shown(text)} {problem}; {advice}")


def shown(text: str) -> str:
    """``text`` quoted for a message (JSON string syntax), cut to its first 40 characters."""
    return one_line(json.dumps(text if len(text) <= _SHOWN else text[:_SHOWN] + "…", ensure_ascii=False))


def code_points(text: str) -> str:
    """The characters of ``text`` outside ASCII named by their code points, for a message about a unit name
    that looks like another: ``"\u212a"`` -> ``"'K' is U+212A KELVIN SIGN, not the letter K: write K"``;
    ``""`` when ``text`` is ASCII. At most three distinct characters are named."""
    import unicodedata

    named: list[str] = []
    for char in dict.fromkeys(c for c in text if not c.isascii()):
        if len(named) == 3:
            named.append("...")
            break
        name = unicodedata.name(char, "")
        said = f"{char!r} is U+{ord(char):04X}" + (f" {name}" if name else "")
        folded = unicodedata.normalize("NFKC", char)
        if folded != char and folded.isascii() and folded.isprintable():
            said += f", not the letter{'s' if len(folded) > 1 else ''} {folded}: write {folded}"
        named.append(said)
    return "; ".join(named)


def number_problem(text: str) -> tuple[str, str] | None:
    """What makes ``text`` (a number, with units or not) no number of the accepted writing before its shape is
    looked at, and what to write instead; None when nothing does.

    - digits of another script (``"\u0663g"``, ``"\uff11\uff10 g"``, ``"1\u0663"``), which Python's ``float()``
      reads: ``("is written with digits that are not ASCII", "write it in ASCII digits: 3g")``;
    - a hexadecimal number (``"0x10 g"``, which would read as 0 in the units ``x10``):
      ``("is not a number: 0x10 is hexadecimal, which is not read", "write the number in decimal digits")``.

    Example:
        >>> number_problem("\u0663g")
        ('is written with digits that are not ASCII', 'write it in ASCII digits: 3g')
    """
    if any(char.isdecimal() and not char.isascii() for char in text):
        written = "".join(str(int(char)) if char.isdecimal() else char for char in text.strip())
        return "is written with digits that are not ASCII", f"write it in ASCII digits: {written}"
    hexadecimal = _HEXADECIMAL.match(text)
    if hexadecimal is not None:
        number = re.match(r"[-+]?0[xX][0-9a-fA-F]*", text.strip(), re.ASCII)
        written = number.group() if number is not None else "0x"
        return f"is not a number: {written} is hexadecimal, which is not read", "write the number in decimal digits"
    return None


def check_quantity(text: str) -> tuple[float, str]:
    """Check that ``text`` is a finite number then units of the accepted shape (see the module).

    Returns:
        The number (``float``) and the unit text after it, stripped (``""`` for none):
        ``"300K"`` -> ``(300.0, "K")``, ``"1e18 /cm3"`` -> ``(1e18, "/cm3")``.

    Raises:
        UnitTextError: any other text; its message names the text and says what is accepted.
    """
    if len(text) > MAX_CHARS:
        raise UnitTextError(
            text, f"is {len(text)} characters long; a number with units is at most {MAX_CHARS} characters"
        )
    problem = number_problem(text)
    if problem is not None:
        raise UnitTextError(text, *problem)
    match = _NUMBER.match(text)
    if match is None:
        not_finite = _NOT_FINITE.match(text) is not None
        raise UnitTextError(text, "is not a finite number" if not_finite else "does not start with a number")
    number = float(match.group(1).replace("d", "e").replace("D", "e"))
    if not math.isfinite(number):
        raise UnitTextError(text, "is not a finite number (beyond a double's range)")
    units = text[match.end():]
    wrong = _units_problem(units)
    if wrong is not None:
        raise UnitTextError(text, wrong)
    return number, units.strip()


def check_units(text: str) -> str:
    """Check that ``text`` is units alone, of the accepted shape (``"cm^-3"``, ``"/cm3"``); returns it stripped.

    Raises:
        UnitTextError: any other text (the message names it and says what is accepted).
    """
    if len(text) > MAX_CHARS:
        raise UnitTextError(text, f"is {len(text)} characters long; units are at most {MAX_CHARS} characters")
    problem = _units_problem(text)
    if problem is not None:
        raise UnitTextError(text, problem)
    return text.strip()


def _name_end(text: str, start: int) -> int:
    """Where the unit name at ``start`` ends (``start`` when none starts there): a letter (any
    alphabet's, ``°`` too) then letters, ASCII digits and ``_``; or one of ``%``, ``‰``."""
    if start < len(text) and text[start] in _SIGNS:
        return start + 1
    end = start
    while end < len(text):
        char = text[end]
        if not (char.isalpha() or char == "°" or (end > start and (char in _DIGITS or char == "_"))):
            break
        end += 1
    return end


def _units_problem(text: str) -> str | None:
    """What makes ``text`` (the units after a number) not of the accepted shape; None when it is."""
    position, depth = 0, 0
    operand = False  # the last token ends an operand: another may follow only after an operator or a space
    powered = False  # the last token is a power's exponent
    powerable = False  # the last token is a unit name or ')'
    first = True
    while True:
        while position < len(text) and text[position] in _SPACES:
            position += 1
        if position == len(text):
            break
        char = text[position]
        end = _name_end(text, position)
        one = _ONE.match(text, position)
        if end > position or one is not None:
            if end > position and _DIGITS_POWER.search(text, position, end):
                return "has a unit name ending in more than one digit (cm3 is cm^3: a power is a single digit)"
            operand, powered, powerable = True, False, one is None
            position = end if one is None else one.end()
        elif text.startswith("**", position) or char == "^":
            if powered:
                return "has a power of a power (like K^2^3): one power may follow a unit name or a parenthesis"
            if not powerable:
                return "has a power (^ or **) that does not follow a unit name or a closing parenthesis"
            exponent = _EXPONENT.match(text, position + (2 if char == "*" else 1))
            if exponent is None:
                return "has a power whose exponent is not a single digit (-9 to 9)"
            if exponent.group().strip(" \t\n\r\f\v()+-") == "0":
                return "has a power 0 (which leaves no unit: leave the unit out)"
            operand, powered, powerable = True, True, False
            position = exponent.end()
        elif char in "*/":
            if not operand and not (first and char == "/"):
                return f"has {char!r} without a unit before it"
            operand, powered, powerable = False, False, False
            position += 1
        elif char == "(":
            depth += 1
            if depth > MAX_DEPTH:
                return f"nests parentheses more than {MAX_DEPTH} deep"
            operand, powered, powerable = False, False, False
            position += 1
        elif char == ")":
            if depth == 0:
                return "has a ')' that closes no '('"
            if not operand:
                return "has a ')' without a unit before it"
            depth -= 1
            operand, powered, powerable = True, False, True
            position += 1
        elif char in _DIGITS:
            return "has a number inside its units (only 1 may stand there, as in 1/cm3)"
        else:
            return f"holds {char!r}, which units cannot hold"
        first = False
    if depth:
        return "has a '(' that is never closed"
    if not operand and not first:
        return "ends with an operator"
    return None
