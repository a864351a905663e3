"""The JSON Schema (2020-12) of a Rappture tool's arguments.

One property per :class:`~.inputs.Input`; ``title`` is its label, ``description`` its description
followed by what the schema cannot say (units, the groups it sits in, presets, the ``enable``
condition, hints).

An input without a ``<default>`` (which Rappture's tool builder calls an error for a number, an integer and a
choice) is a *required* property when it takes a value nothing else supplies: a number, integer, choice or
periodic element, unless an example of the tool's loader sets it (then a call without it, or with an example that
does not set it, is refused at run time). Others have the value Rappture's own form starts from: a boolean is off
(``false``), a string empty, a multichoice has nothing picked. A choice or multichoice default that names none of
its options (by value or label) is refused at registration, as Rappture's builder refuses it ("Default value must be
a label or value for one of the current choices"): a call leaving the input out would hand the program a value it
does not offer.

=================  ====================================================================================
Rappture input     property
=================  ====================================================================================
number with units  ``{"type": ["number", "string"]}``: a number in the declared units, or a string
                   with units of the same dimension (``"77K"``, ``"25C"``, ``"2nm"``); ``minimum``/
                   ``maximum``/``default``/``examples`` (the presets) in the declared units
number             ``{"type": "number"}`` with ``minimum``/``maximum``/``default``
integer            ``{"type": "integer"}`` with ``minimum``/``maximum``/``default``
boolean            ``true``/``false``, ``1``/``0``, or one of Rappture's spellings ``yes``/``no``,
                   ``on``/``off``, ``true``/``false``, ``1``/``0`` in any case
choice             ``{"type": "string", "enum": [...]}``: the options' values, and their labels too
multichoice        ``{"type": "array", "items": {"enum": [...]}, "uniqueItems": true}``
string             ``{"type": "string"}`` (the description says when it is multi-line text)
loader             ``{"type": "string", "enum": [example labels]}``: which example to start from
periodicelement    ``{"type": "string", "enum": [element symbols]}``
=================  ====================================================================================
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

from ...schema import GeneratedSchema
from .inputs import Input
from .loader import example_currents
from .units import UnitError, convert

__all__ = [
    "BOOLEAN_PATTERN", "BOOLEAN_WORDS", "element_symbols", "input_schema", "needs_value", "property_schema",
    "with_units",
]

BOOLEAN_WORDS = {
    "yes": True,
    "on": True,
    "true": True,
    "1": True,
    "no": False,
    "off": False,
    "false": False,
    "0": False,
}
"""Rappture's spellings of a boolean (``<default>on</default>``), and what each means."""
BOOLEAN_PATTERN = "^\\s*(" + "|".join(
    "".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in word) for word in BOOLEAN_WORDS) + ")\\s*$"
"""The spellings as a JSON Schema pattern, in any case (Rappture reads them as Tcl's ``string is boolean``
does: ``YES``, ``On``) and with white space around them (ECMA-262 patterns have no case-blind flag)."""

_CATEGORY_NUMBERS = {
    "lanthanoid": set(range(57, 72)),
    "actinoid": set(range(89, 104)),
    "alkali-metal": {3, 11, 19, 37, 55, 87},
    "alkaline-earth-metal": {4, 12, 20, 38, 56, 88},
    "noble-gas": {2, 10, 18, 36, 54, 86, 118},
    "halogen": {9, 17, 35, 53, 85, 117},
    "metalloid": {5, 14, 32, 33, 51, 52},
    "other-non-metal": {1, 6, 7, 8, 15, 16, 34},
    "post-transition-metal": {13, 31, 49, 50, 81, 82, 83, 84, 113, 114, 115, 116},
}
_CATEGORY_NUMBERS["transition-metal"] = (
    set(range(21, 31)) | set(range(39, 49)) | set(range(72, 81)) | set(range(104, 113))
)


def _number(text: str, units: str, what: str) -> float | None:
    if not text:
        return None
    try:
        value = convert(text, units)
    except UnitError as exc:
        raise ValueError(f"its {what} {text!r}: {exc}") from None
    if not math.isfinite(value):  # 1e400, or an integer of 400 digits: a float reads it as infinite
        shown = text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"
        raise ValueError(f"its {what} {shown!r} is past the largest number a client can read (about 1.8e308); "
                         "write a smaller one, or leave it out")
    return value


def _check_order(item: Input, low: float | None, high: float | None, default: float | None) -> None:
    """Refuse limits in the wrong order and a default outside them (Rappture's own number control
    refuses such a default as the tool loads: "minimum value allowed here is ...")."""
    if low is not None and high is not None and low > high:
        raise ValueError(f"its minimum {item.minimum!r} is above its maximum {item.maximum!r}, so no value fits; "
                         "swap them")
    _check_within(item, "default", item.default, default, low, high)


def _check_within(item: Input, what: str, text: str, value: float | None, low: float | None,
                  high: float | None) -> None:
    """Refuse a default or a preset (``what``, written ``text``, read as ``value``) outside the limits."""
    if value is not None and low is not None and value < low:
        raise ValueError(f"its {what} {text!r} is below its minimum {item.minimum!r}, so a client could "
                         f"not send it; change the {what} or the minimum")
    if value is not None and high is not None and value > high:
        raise ValueError(f"its {what} {text!r} is above its maximum {item.maximum!r}, so a client could "
                         f"not send it; change the {what} or the maximum")


def _plain(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 1e15 else value


def element_symbols(item: Input) -> list[str]:
    """The element symbols a periodicelement input offers (its ``active``/``inactive`` groups applied)."""
    import periodictable

    active = item.extra.get("active", "").split()
    inactive = item.extra.get("inactive", "").split()
    symbols = []
    for element in periodictable.elements:
        if element.number == 0:
            continue
        groups = {name for name, numbers in _CATEGORY_NUMBERS.items() if element.number in numbers}
        if active and not groups & set(active):
            continue
        if groups & set(inactive):
            continue
        symbols.append(element.symbol)
    return symbols


def _notes(item: Input) -> list[str]:
    notes = []
    if item.context:
        notes.append(f"In: {' > '.join(item.context)}.")
    if item.enable:
        notes.append(f"Used only when {item.enable}.")
    return notes


def property_schema(item: Input) -> dict[str, Any]:
    """The JSON Schema of one argument.

    Raises:
        ValueError: a limit, default or preset that is not a number in units that fit; a
            minimum above the maximum, or a default or preset outside them.
    """
    schema: dict[str, Any] = {"title": item.label or item.name}
    notes = [item.description] if item.description else []
    kind = item.kind
    if kind in ("number", "integer"):
        units = item.units if kind == "number" else ""
        low, high = _number(item.minimum, units, "minimum"), _number(item.maximum, units, "maximum")
        default = _number(item.default, units, "default")
        _check_order(item, low, high, default)
        schema["type"] = "integer" if kind == "integer" else (["number", "string"] if units else "number")
        for key, value in (("minimum", low), ("maximum", high), ("default", default)):
            if value is not None:
                schema[key] = _plain(value)
        presets = [(p, _number(p, units, "preset")) for p, _ in item.presets if p]
        for text, value in presets:
            _check_within(item, "preset", text, value, low, high)
        if presets:
            schema["examples"] = [_plain(v) for _, v in presets if v is not None]
            notes.append(
                "Presets: "
                + "; ".join(
                    f"{p}" + (f" ({label})" if label and label != p else "")
                    for (p, _), (_, label) in zip(presets, item.presets, strict=False)
                )
                + "."
            )
        if units:
            notes.append(
                f"Units: {units}. Give a number in {units}, or a string with units "
                f'(e.g. "{item.default or "1" + units}").'
            )
    elif kind == "boolean":
        schema["anyOf"] = [{"type": "boolean"}, {"enum": [0, 1]}, {"type": "string", "pattern": BOOLEAN_PATTERN}]
        if item.default.lower() in BOOLEAN_WORDS:
            schema["default"] = BOOLEAN_WORDS[item.default.lower()]
        elif not item.default:  # Rappture's switch starts off
            schema["default"] = False
    elif kind in ("choice", "loader"):
        values = [o.value for o in item.options]
        labels = [o.label for o in item.options if o.label not in values]
        schema["type"] = "string"
        schema["enum"] = [*values, *labels]
        chosen = _option_value(item, item.default)
        if kind == "choice" and item.default and chosen is None and item.options:
            raise ValueError(_not_an_option(item, repr(item.default)))
        if chosen is not None:
            schema["default"] = chosen
        listed = [
            f"{o.value}"
            + (f" ({o.label})" if o.label != o.value else "")
            + (f": {o.description.rstrip('.')}" if o.description else "")
            for o in item.options
        ]
        if kind == "loader":
            notes.append("Starts from one of the tool's examples (its input values are used unless given here).")
        if listed:
            notes.append("Options: " + "; ".join(listed) + ".")
    elif kind == "multichoice":
        values = [o.value for o in item.options]
        schema["type"] = "array"
        schema["items"] = {"enum": [*values, *(o.label for o in item.options if o.label not in values)]}
        schema["uniqueItems"] = True
        parts = [part.strip() for part in item.default.split(",") if part.strip()]
        unknown = [part for part in parts if _option_value(item, part) is None]
        if unknown and item.options:
            raise ValueError(_not_an_option(item, ", ".join(map(repr, unknown))))
        schema["default"] = [c for c in (_option_value(item, part) for part in parts) if c is not None]
        notes.append("Options: " + "; ".join(f"{o.value} ({o.label})" for o in item.options) + ".")
    elif kind == "string":
        schema["type"] = "string"
        schema["default"] = item.default  # (none: Rappture's entry starts empty)
        if item.lines > 1:
            notes.append(f"Multi-line text ({item.lines} lines shown).")
        if item.hints:
            notes.append(f"Hint: {item.hints}")
    elif kind == "periodicelement":
        schema["type"] = "string"
        schema["enum"] = element_symbols(item)
        if item.default:
            schema["default"] = item.default
        notes.append("A chemical element symbol.")
    notes.extend(_notes(item))
    if notes:
        schema["description"] = " ".join(notes)
    return schema


def _not_an_option(item: Input, shown: str) -> str:
    """Why a choice's (or multichoice's) default is refused: ``shown`` names no option."""
    options = ", ".join(o.value + (f" ({o.label})" if o.label != o.value else "") for o in item.options)
    return (f"its default {shown} is not one of its options ({options}) by value or label, so a call leaving "
            "it out would give the program a value it does not offer; make the default one of them")


def with_units(limit: str, units: str) -> str:
    """A limit as written (``10m``, ``10``), with the declared units added when it has none (``10m``)."""
    if units and limit and limit[-1:].isdigit():
        return limit + units
    return limit


def needs_value(item: Input) -> bool:
    """Whether a call must give ``item`` (see the module docstring): it has no ``<default>``, and its kind has
    no value Rappture's form starts from (a number, integer, choice or periodic element)."""
    return not item.default and item.kind in ("number", "integer", "choice", "periodicelement")


def _loader_sets(arguments: list[Input]) -> set[str]:
    """The input paths an example of a loader sets (an unreadable example sets none)."""
    found: set[str] = set()
    for item in arguments:
        if item.kind != "loader":
            continue
        for key, file in item.extra.items():
            if key.startswith("example:"):
                try:
                    found.update(example_currents(file))
                except (ET.ParseError, OSError):
                    continue
    return found


def _option_value(item: Input, given: str) -> str | None:
    """The option value ``given`` names (by value or by label); None when it names none."""
    for option in item.options:
        if given == option.value:
            return option.value
    for option in item.options:
        if given == option.label:
            return option.value
    return None


def input_schema(arguments: list[Input], tool_name: str) -> GeneratedSchema:
    """The tool's ``inputSchema``: an object of every argument, nothing else allowed; required are the
    arguments :func:`needs_value` names that no loader example sets.

    Raises:
        ValueError: an input whose limits or default are not numbers in units that fit, whose
            minimum is above its maximum, or whose default or a preset is outside them; a choice or
            multichoice whose default is none of its options (the message names the input).
    """
    properties: dict[str, Any] = {}
    for item in arguments:
        try:
            properties[item.name] = property_schema(item)
        except ValueError as exc:
            raise ValueError(f"Rappture tool {tool_name!r}: input {item.path}: {exc}") from None
    supplied = _loader_sets(arguments) if any(needs_value(item) for item in arguments) else set()
    required = [item.name for item in arguments if needs_value(item) and item.path not in supplied]
    if required:
        return GeneratedSchema(type="object", properties=properties, required=required, additionalProperties=False)
    return GeneratedSchema(type="object", properties=properties, additionalProperties=False)
