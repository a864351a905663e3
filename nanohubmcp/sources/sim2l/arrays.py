"""An ``Array`` input's value: its shape checked whole first, then its strings with units converted a
unit at a time.

:func:`elements` walks the value once, before anything is converted: an Array is a list of numbers,
or of rows (lists) that all have one length and the same shape below (``[[1, 2], [3, 4]]``); a row
of another length, a number beside rows, or an element that is no number (``true``, ``null``, an
object; a string where no units are declared) is refused naming it (``temps[1]``,
``temps[2][0]``), as is a string that is not a number with units of the accepted shape
(:mod:`nanohubmcp.sources.units_text`). Only then are the strings read.

simtool reads each string of an Array with pint's expression parser, ~190 µs an element: 100,000
valid strings took ~19 s before an element of the wrong kind at the end was refused. :func:`convert`
reads the strings that share their spelling after the number (``" K"``) as one group: pint parses
the group's first and last strings as simtool does (its refusal is the group's), and converts the
numbers of all of them in one array operation with the units it read. The result is simtool's for
every element: where the group's first or last element converts otherwise than simtool converts it
alone (a spelling pint reads in its own way: ``"05 K"`` is 0 K to pint), or the array operation
gives a number that is not finite, every element of the group is converted alone, as simtool does.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ...protocol.message_values import one_line
from ..units_text import MAX_CHARS, UnitTextError, check_quantity

__all__ = ["ArrayRefusal", "Elements", "convert", "elements", "nested"]

_INT = re.compile(r"\s*[-+]?(?:0|[1-9]\d*)(?![\w.])", re.ASCII)
"""A whole number as pint reads one (``"05"`` is not: pint reads it as 0)."""
_FLOAT = re.compile(r"\s*[-+]?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])", re.ASCII)
MAX_TEXTS = 10_000
"""Distinct strings of one Array whose reading is remembered while it is walked."""
_SHOWN = 80
"""Characters of a refused element (as JSON) quoted in its message."""


class ArrayRefusal(Exception):
    """An element or row of an Array refused.

    Attributes:
        where: the element named as the message names it (``temps[2][0]``).
        element: the element as given.
        problem: what is wrong with its shape or type, ready for the message; or None when
            ``cause`` says it.
        cause: what simtool (pint) raised for the element, or the :class:`UnitTextError` of its text.
    """

    def __init__(self, where: str, element: Any, problem: str | None = None, cause: Exception | None = None):
        super().__init__(problem or str(cause))
        self.where = where
        self.element = element
        self.problem = problem
        self.cause = cause


@dataclass
class Elements:
    """An Array's elements in order (its scalars, whatever the nesting), and its shape.

    Attributes:
        shape: the length of the array, then of its rows, and so on (``[2, 3]`` for two rows of 3).
        values: each element as given.
        read: for a string, its number and the text after the number's literal (``(300, " K")``),
            the number an ``int`` or ``float`` as pint reads its literal; None when the literal is
            one pint may read otherwise (that string is converted alone).
    """

    shape: list[int]
    values: list[Any] = field(default_factory=list)
    read: dict[int, tuple[int | float, str] | None] = field(default_factory=dict)
    texts: dict[str, tuple[int | float, str] | None] = field(default_factory=dict, repr=False)
    units: set[str] = field(default_factory=set, repr=False)

    def path(self, index: int) -> tuple[int, ...]:
        """The indexes of element ``index`` (``(1, 0)`` for ``temps[1][0]``): the array is rectangular."""
        indexes = []
        for length in reversed(self.shape):
            index, at = divmod(index, length)
            indexes.append(at)
        return tuple(reversed(indexes))

    def where(self, name: str, index: int) -> str:
        """Element ``index`` named as messages name it (``temps[1][0]``)."""
        return _where(name, self.path(index))


def _where(name: str, path: tuple[int, ...]) -> str:
    return name + "".join(f"[{index}]" for index in path)


def _shown(value: object) -> str:
    text = one_line(json.dumps(value, ensure_ascii=False, default=lambda v: type(v).__name__))
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def elements(value: list[Any], name: str, units: str | None) -> Elements:
    """Check the shape of an Array's ``value`` and the type of every element (module docstring).

    ``name`` names the input in messages; ``units``: the declared units (strings are then numbers
    with units, held to the accepted shape), or None (numbers only).

    Raises:
        ArrayRefusal: the first row or element refused, walking the array in order.
    """
    shape: list[int] = []
    node: Any = value
    while isinstance(node, list):
        shape.append(len(node))
        if not node:
            break
        node = node[0]
    found = Elements(shape)
    _visit(found, value, 0, (), name, units)
    return found


def _visit(found: Elements, row: list[Any], depth: int, path: tuple[int, ...], name: str, units: str | None) -> None:
    shape = found.shape
    if len(row) != shape[depth]:
        first = _where(name, (0,) * depth)
        raise ArrayRefusal(_where(name, path), row, f"has {_count(len(row), 'element')} but {first} has "
                           f"{shape[depth]}: the rows of an Array all have one length")
    if depth + 1 < len(shape):  # rows
        for index, element in enumerate(row):
            if not isinstance(element, list):
                raise ArrayRefusal(_where(name, (*path, index)), element, f"{_shown(element)} stands where "
                                   f"{_where(name, (0,) * (depth + 1))} is a row (a list): {_ONE_KIND}")
            _visit(found, element, depth + 1, (*path, index), name, units)
        return
    values, read = found.values, found.read
    for index, element in enumerate(row):  # numbers (the hot loop: 100,000 elements)
        kind = type(element)
        if kind is str and units:
            read[len(values)] = _checked_text(found, element, name, (*path, index))
        elif kind is not int and kind is not float and (kind is bool or not isinstance(element, (int, float))):
            raise ArrayRefusal(_where(name, (*path, index)), element, _not_a_number(element, name, path, depth))
        values.append(element)  # (a subclass of int or float, from server.call: simtool's to judge)


_ONE_KIND = "an Array's elements are all numbers, or all rows of one length"


def _not_a_number(element: Any, name: str, path: tuple[int, ...], depth: int) -> str:
    if isinstance(element, list):
        return f"is a row (a list) where {_where(name, (0,) * (depth + 1))} is a number: {_ONE_KIND}"
    if isinstance(element, str):
        return f"{_shown(element)} is a string: give numbers (this input declares no units)"
    return f"{_shown(element)} is not a number"


def _checked_text(found: Elements, text: str, name: str, path: tuple[int, ...]) -> tuple[int | float, str] | None:
    """:func:`_literal` of ``text`` once :func:`~..units_text.check_quantity` passed it: the texts
    and the unit texts after a number already passed are not read again (an Array of 100,000 strings
    mostly repeats a few units)."""
    if text in found.texts:
        return found.texts[text]
    read = _literal(text)
    if read is None or len(text) > MAX_CHARS or not math.isfinite(read[0]) or read[1] not in found.units:
        try:
            check_quantity(text)
        except UnitTextError as exc:
            raise ArrayRefusal(_where(name, path), text, cause=exc) from None
        if read is not None:  # the literal check_quantity read is this one: the units after it pass
            found.units.add(read[1])
    if len(found.texts) < MAX_TEXTS:
        found.texts[text] = read
    return read


def _literal(text: str) -> tuple[int | float, str] | None:
    """The number a string starts with as pint reads it, and the text after it; None when pint may
    read its literal otherwise than Python does."""
    match = _INT.match(text)
    if match is not None:
        return int(match.group()), text[match.end():]
    match = _FLOAT.match(text)
    if match is not None:
        return float(match.group()), text[match.end():]
    return None


def convert(plain: Any, ureg: Any, found: Elements, name: str) -> tuple[list[Any], ArrayRefusal | None]:
    """Each element of ``found`` as simtool's Array without limits (``plain``) converts it alone to
    the declared units (a number stays as it is), in order.

    Returns the converted elements up to the first one simtool refuses, and that refusal (None when
    every element converts). ``ureg`` is simtool's pint registry.
    """
    import numpy  # simtool's own dependency

    values: list[Any] = list(found.values)
    groups: dict[str, list[int]] = {}
    alone: list[int] = []
    for index, read in found.read.items():
        if read is None:
            alone.append(index)
        else:
            groups.setdefault(f"{type(read[0]).__name__}:{read[1]}", []).append(index)
    failed: dict[int, Exception] = {}
    stop = len(values)  # the first element refused so far: what comes after it is not converted
    for members in groups.values():  # in the order of their first elements
        if members[0] > stop:
            break
        probed: dict[int, Any] = {}
        try:
            for index in dict.fromkeys((members[0], members[-1])):
                probed[index] = _alone(plain, values[index])
        except Exception as exc:  # pint's and simtool's errors
            if members[0] not in probed:
                failed[members[0]] = exc  # refused by its units: the group's first element is the first refused
                stop = min(stop, members[0])
            else:
                alone.extend(members)  # its last element alone is refused: find the first, one by one
            continue
        if len(members) <= 2:  # each converted alone already
            for index, converted in probed.items():
                values[index] = converted
            continue
        together = _together(plain, ureg, numpy, [found.read[i] for i in members], values[members[0]],
                             probed[members[0]])
        if together is None or not all(_same(together[members.index(i)], probed[i]) for i in probed):
            alone.extend(members)  # pint reads this spelling in its own way: as simtool does, one by one
            continue
        for index, converted in zip(members, together, strict=True):
            values[index] = converted
    for index in sorted(alone):
        if index > stop:
            break
        try:
            values[index] = _alone(plain, values[index])
        except Exception as exc:
            failed[index] = exc
            break  # (the ones after it come later in the array)
    if not failed:
        return values, None
    first = min(failed)
    refusal = ArrayRefusal(found.where(name, first), found.values[first], cause=failed[first])
    return values[:first], refusal


def _alone(plain: Any, text: Any) -> Any:
    plain.value = [text]
    return plain.value[0]


def _same(one: Any, other: Any) -> bool:
    return type(one) is type(other) and (one == other or (one != one and other != other))


def _together(plain: Any, ureg: Any, numpy: Any, read: list[Any], sample: str, converted: Any) -> list[Any] | None:
    """The numbers of a group converted in one array operation with the units pint reads in
    ``sample`` (its first string, which simtool alone ``converted``), as Python numbers; None when
    one is not finite."""
    parsed = ureg.parse_expression(sample)
    if not hasattr(parsed, "units"):  # a number alone: simtool takes it as a float
        return [float(number) for number, _ in read]
    if isinstance(read[0][0], int) and type(converted) is int:
        # the units are the declared ones: pint leaves a whole number as it is (no conversion factor)
        return [number for number, _ in read]
    with numpy.errstate(all="ignore"):
        magnitudes = plain.convert(ureg.Quantity(numpy.asarray([number for number, _ in read], dtype=float),
                                                 parsed.units))
    array = numpy.asarray(magnitudes, dtype=float)
    if not numpy.isfinite(array).all():
        return None
    return [float(number) for number in array.tolist()]


def nested(shape: list[int], values: list[Any]) -> list[Any]:
    """``values`` (in order) as the nested lists of ``shape`` (an Array of that shape's elements)."""
    if shape and shape[-1] == 0:  # rows with no elements (only the last length may be 0)
        return _empty_rows(shape)
    rows: list[Any] = list(values)
    for length in reversed(shape[1:]):
        rows = [rows[start : start + length] for start in range(0, len(rows), length)]
    return rows


def _empty_rows(shape: list[int]) -> list[Any]:
    return [] if len(shape) == 1 else [_empty_rows(shape[1:]) for _ in range(shape[0])]
