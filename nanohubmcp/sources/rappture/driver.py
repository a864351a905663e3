"""From a call's arguments to a Rappture driver file: each input's ``current`` value.

The driver is the tool.xml itself with a ``<current>`` in every input, as Rappture's own runner
writes it: the given arguments, else what the chosen loader example holds, else the input's
``<default>`` (a choice's default given as a label becomes the option's value); without one, what
Rappture's form starts from (a boolean ``no``, a string or multichoice empty), and a number, integer,
choice or periodic element with none of these is refused as missing: the program never runs without it.

A number given with other units (``"25C"`` for a tool in K) is converted to the declared units
and written with them (``298.15K``); its limits are checked after the conversion. A number given as
text is first held to the one shape :mod:`nanohubmcp.sources.units_text` accepts (a finite number,
then unit names, ``*``, ``/``, parentheses and single-digit powers), before pint or Rappture's unit
code reads it (``"1 K**9**9**9"`` held the GIL for hours). Bad values raise
:class:`~nanohubmcp.errors.InvalidArguments`, which the server reports as invalid params
(-32602, or an ``isError`` result from protocol 2025-11-25, SEP-1303) with a message naming the
argument and what fits.
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ...errors import InvalidArguments
from ..units_text import UnitTextError, check_quantity
from .inputs import Input, text_of
from .loader import example_currents
from .schema import BOOLEAN_WORDS, needs_value, with_units
from .units import UnitError, UnitsUnavailable, convert, split_number, to_units

__all__ = ["check_values", "converts_units", "current_values", "write_driver"]


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, even escaped (its ``Char`` production; surrogates alone)."""


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def _refuse(tool: str, item: Input, problem: str) -> InvalidArguments:
    label = f" ({item.label})" if item.label and item.label != item.name else ""
    return InvalidArguments(f"Invalid arguments for tool '{tool}': {item.name}{label}: {problem}")


def _digits(value: int) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}... ({len(text)} digits)"


def _whole(tool: str, item: Input, value: int) -> str:
    """An integer input given as a JSON integer: compared with its limits and written exactly (a double holds
    integers only to 2**53, and not past about 1e308)."""
    try:
        low = convert(item.minimum, "") if item.minimum else None
        high = convert(item.maximum, "") if item.maximum else None
    except (UnitError, UnitTextError) as exc:
        raise _refuse(tool, item, str(exc)) from None
    if low is not None and value < low:
        raise _refuse(tool, item, f"{_digits(value)} is below the minimum {with_units(item.minimum, '')}")
    if high is not None and value > high:
        raise _refuse(tool, item, f"{_digits(value)} is above the maximum {with_units(item.maximum, '')}")
    return str(value)


def _number(tool: str, item: Input, value: Any) -> str:
    units = item.units if item.kind == "number" else ""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _refuse(tool, item, f"expected a number{' in ' + units if units else ''}")
    if isinstance(value, int) and item.kind == "integer":
        return _whole(tool, item, value)
    try:
        if isinstance(value, str):
            check_quantity(value)
            parsed = split_number(value)
            if parsed is None:
                raise UnitError(f"{value!r} is not a number" + (f" (write it like 1.5{units})" if units else ""))
            number, given = parsed
            if given and not units:
                raise UnitError(f"{value!r} has units, but this number takes none")
            number = to_units(number, given, units)
        else:
            try:
                number = float(value)
            except OverflowError:  # a JSON integer of hundreds of digits
                raise _refuse(tool, item, f"{_digits(int(value))} is beyond a double's range") from None
        low = convert(item.minimum, units) if item.minimum else None
        high = convert(item.maximum, units) if item.maximum else None
    except UnitsUnavailable:  # the operator was warned at registration; the client can still give plain numbers
        raise _refuse(tool, item, f"{value!r}: this server cannot convert units (pint is not installed on it); "
                                  f"give the number in {units}") from None
    except (UnitError, UnitTextError) as exc:
        raise _refuse(tool, item, str(exc)) from None
    shown = f"{_fmt(number)}{units}"
    # A text is said as read ('25C' is 298.15K); a plain number is in the declared units, which the limit carries.
    said = f"{value!r} is {shown}," if isinstance(value, str) else f"{_fmt(number)} is"
    if low is not None and number < low:
        raise _refuse(tool, item, f"{said} below the minimum {with_units(item.minimum, units)}")
    if high is not None and number > high:
        raise _refuse(tool, item, f"{said} above the maximum {with_units(item.maximum, units)}")
    if item.kind == "integer":
        if not number.is_integer():
            raise _refuse(tool, item, f"{value!r} is not a whole number")
        return str(int(number))
    return shown


def _option(tool: str, item: Input, given: str) -> str:
    for option in item.options:
        if given == option.value:
            return option.value
    for option in item.options:
        if given == option.label:
            return option.value
    choices = ", ".join(o.value for o in item.options)
    shown = given if len(given) <= 60 else f"{given[:60]}… ({len(given)} characters)"
    raise _refuse(tool, item, f"{shown!r} is not one of its options ({choices})")


def _value(tool: str, item: Input, value: Any) -> str:
    kind = item.kind
    if kind in ("number", "integer"):
        return _number(tool, item, value)
    if kind == "boolean":
        if isinstance(value, bool):
            word: bool | None = value
        elif isinstance(value, (int, float)):  # JSON 1 / 0 (1.0 too: the schema's enum takes it)
            word = bool(value) if value in (0, 1) else None
        else:
            word = BOOLEAN_WORDS.get(str(value).strip().lower())
        if word is None:
            raise _refuse(tool, item, f"{value!r} is not a yes-or-no value: give true or false (or 1/0, or one of "
                                      "the texts yes/no, on/off, true/false, 1/0, in any case)")
        return "yes" if word else "no"
    if kind in ("choice", "loader"):
        return _option(tool, item, str(value))
    if kind == "multichoice":
        given = value if isinstance(value, list) else [v for v in str(value).split(",") if v.strip()]
        return ",".join(_option(tool, item, str(v).strip()) for v in given)
    if kind == "periodicelement":
        return _element(tool, item, str(value))
    text = str(value)
    bad = _NOT_XML.search(text)
    if bad is not None:  # else the driver file is not XML, and the program fails reading it
        raise _refuse(tool, item, f"contains the character U+{ord(bad.group()):04X} (at {bad.start()}), which an "
                                  "XML file cannot hold; leave it out")
    return text


def _element(tool: str, item: Input, given: str) -> str:
    """A periodic element in the form its ``<returnvalue>`` asks for (symbol, name, number, weight
    or all four)."""
    import periodictable

    wanted = given.strip().lower()
    for element in periodictable.elements:
        if element.number and wanted in (element.symbol.lower(), element.name.lower()):
            break
    else:
        raise _refuse(tool, item, f"{given!r} is not a chemical element symbol")
    forms = {
        "symbol": element.symbol,
        "name": element.name.capitalize(),
        "number": str(element.number),
        "weight": f"{element.mass:g}",
    }
    form = item.extra.get("returnvalue", "") or "symbol"
    if form == "all":
        return " ".join(forms[k] for k in ("number", "symbol", "name", "weight"))
    return forms.get(form, element.symbol)


_STARTS_AS = {"boolean": "no", "string": "", "multichoice": ""}
"""What Rappture's form holds for an input without ``<default>`` (a switch off, an empty entry, nothing picked)."""


def _default(tool: str, item: Input) -> str | None:
    if not item.default:
        return _STARTS_AS.get(item.kind)
    return _as_written(tool, item, item.default)


def _missing(tool: str, item: Input) -> InvalidArguments:
    """The refusal of a call that leaves out an input with no ``<default>`` that must have a value."""
    if item.kind == "number":
        what = f"a number in {item.units}" if item.units else "a number"
    elif item.kind == "choice":
        what = "one of " + ", ".join(o.value for o in item.options)
    else:
        what = {"integer": "a whole number", "periodicelement": "an element symbol"}.get(item.kind, "a value")
    return _refuse(tool, item, f"missing: it has no <default>, so a call must give it ({what})")


def _as_written(tool: str, item: Input, text: str) -> str:
    """A default's or a loader example's text in the form the program reads (a choice's value for
    its label, an element in its ``<returnvalue>`` form); other kinds, and what does not fit, as written."""
    if item.kind in ("choice", "multichoice", "periodicelement"):
        try:
            return _value(tool, item, text)
        except InvalidArguments:
            return text
    return text


def _example_currents(item: Input, label: str) -> dict[str, str]:
    """The ``current`` values the example ``label`` of a loader sets, by input path."""
    file = item.extra.get(f"example:{label}")
    return example_currents(file) if file else {}


def check_values(tool: str, arguments: list[Input], given: dict[str, Any]) -> None:
    """Check each given argument as :func:`current_values` would write it (a number's units
    converted and its limits checked, a choice's option, text an XML file can hold), reading no
    file: what the call's arguments can be refused for before a job is made for them. A periodic
    element is left to the schema (its symbols are its ``enum``).

    Raises:
        InvalidArguments: a value that does not fit its input (the message names the argument).
    """
    for item in arguments:
        value = given.get(item.name)
        if value is not None and item.kind != "periodicelement":
            _value(tool, item, value)


def converts_units(arguments: list[Input], given: dict[str, Any]) -> bool:
    """Whether :func:`check_values` converts a number between units for ``given``: a value written
    with other units than its input declares (``"25C"`` for K), or a limit so written. That
    conversion needs pint's unit registry (see :func:`.units.registry_ready`); the rest does not."""
    for item in arguments:
        value = given.get(item.name)
        if value is None or item.kind != "number" or not item.units:
            continue
        texts = [t for t in (item.minimum, item.maximum) if t]
        if isinstance(value, str) and _shaped(value):  # else refused by check_values without pint
            texts.append(value)
        for text in texts:
            parsed = split_number(text)
            if parsed is not None and parsed[1] and parsed[1] != item.units:
                return True
    return False


def _shaped(text: str) -> bool:
    try:
        check_quantity(text)
    except UnitTextError:
        return False
    return True


def current_values(tool: str, arguments: list[Input], given: dict[str, Any]) -> dict[str, str]:
    """Every argument's ``current`` text, by Rappture path.

    Raises:
        InvalidArguments: a value that does not fit its input, or none given (nor set by the loader's
            example) for an input without ``<default>`` that needs one (the message names the argument).
    """
    currents: dict[str, str] = {}
    examples: dict[str, str] = {}
    for item in arguments:
        if item.kind == "loader":
            label = given.get(item.name, item.default)
            if label:
                chosen = _value(tool, item, label) if item.name in given else label
                examples.update(_example_currents(item, chosen))
    for item in arguments:
        if item.name in given and given[item.name] is not None:
            currents[item.path] = _value(tool, item, given[item.name])
        elif item.path in examples:
            currents[item.path] = _as_written(tool, item, examples[item.path])
        else:
            default = _default(tool, item)
            if default is not None:
                currents[item.path] = default
            elif needs_value(item):  # (the schema requires it, unless a loader example may set it)
                raise _missing(tool, item)
    return currents


def write_driver(root: ET.Element, arguments: list[Input], currents: dict[str, str], path: Path) -> None:
    """Write the driver: a copy of the tool document with each input's ``<current>`` set.

    Inputs that are not arguments (hidden ones, a structure's geometry) get their default as
    their ``current``, as Rappture's runner does. A CR in a value is written as ``&#13;``, so the
    program reads it back as a CR (a parser turns a CR written as itself into a line feed).
    """
    document = copy.deepcopy(root)
    originals = list(root.iter())
    copies = list(document.iter())
    mapping = {id(a): b for a, b in zip(originals, copies, strict=True)}
    by_element = {id(item.element): item for item in arguments}
    section = document.find("input")
    if section is not None:
        for element in section.iter():
            if element.find("default") is not None and element.find("current") is None:
                ET.SubElement(element, "current").text = text_of(element, "default")
    for original in originals:
        item = by_element.get(id(original))
        if item is None or item.path not in currents:
            continue
        target = mapping[id(original)]
        current = target.find("current")
        if current is None:
            current = ET.SubElement(target, "current")
        current.text = currents[item.path]
    # An XML parser reads a CR (alone or before LF) as LF; as a character reference it stays a CR. Text
    # ElementTree writes holds a raw CR only where a value held one (attributes it escapes itself).
    text = ET.tostring(document, encoding="utf-8", xml_declaration=True)
    path.write_bytes(text.replace(b"\r", b"&#13;"))
