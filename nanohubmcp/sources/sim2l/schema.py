"""The JSON Schema (2020-12) of a Sim2L's arguments, and the text that describes its outputs.

One property per declared input; ``title`` is the input's name in words, ``description`` its
``description`` (or older ``desc``) followed by what the schema cannot say (units, limits given
with units, the Element property). ``default`` is the declared ``value``. No property is
required: an input left out keeps its declared value (or the notebook's ``parameters`` cell).

=========  ========================================================================================
Sim2L      property
=========  ========================================================================================
Boolean    ``{"type": "boolean"}``
Integer    ``{"type": "integer"}`` with ``minimum``/``maximum``
Number     ``{"type": "number"}`` with ``minimum``/``maximum``; with ``units``, ``["number", "string"]``:
           a number in the declared units or a string with units of the same dimension
           (``"77 K"``, ``"25 degC"``), converted with pint and checked against the limits after
Text       ``{"type": "string"}``
Tag        ``{"type": "string", "maxLength": 255}``
Choice     ``{"type": "string", "enum": options}``
List       ``{"type": "array"}``
Dict       ``{"type": "object"}``
Array      ``{"type": "array"}`` of numbers (or nested arrays; strings with units when declared)
File       the file's text, or ``{"name", "base64"}`` for any bytes
Image      ``{"name", "base64"}`` (PNG, JPEG, GIF...)
Element    ``{"type": "string"}``: an element symbol or name; the notebook receives its ``property``
=========  ========================================================================================
"""

from __future__ import annotations

import math
import re
from typing import Any

from ...schema import GeneratedSchema
from .notebook import Declaration, Sim2LSpec

__all__ = ["FILE_OBJECT", "input_schema", "outputs_text", "property_schema"]

TAG_MAX_LENGTH = 255
"""simtool's longest Tag."""

FILE_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 255, "description": "the file's name"},
        "base64": {"type": "string", "contentEncoding": "base64", "description": "the file's bytes, base64"},
    },
    "required": ["base64"],
    "additionalProperties": False,
}


PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number written as text that simtool reads as one: PyYAML reads ``1e9`` (no ``.``, no exponent sign:
YAML 1.1) as the string ``"1e9"``, which simtool's ``Number`` and ``Integer`` turn into 1e9 with ``float()``
(or pint's ``parse_expression``, for a Number with units)."""


def _limit(value: Any) -> float | None:
    """``min``/``max`` as the number simtool reads it; None for a limit with units (``"10 nm"``), or none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and PLAIN_NUMBER.fullmatch(value.strip()):
        number = float(value)
        return number if math.isfinite(number) else None
    return float(value) if isinstance(value, (int, float)) else None


def _limits(schema: dict[str, Any], item: Declaration, notes: list[str]) -> None:
    for key, value in (("minimum", item.minimum), ("maximum", item.maximum)):
        if value is None:
            continue
        number = _limit(value)
        if number is not None:
            schema[key] = int(number) if item.type == "Integer" and number.is_integer() else number
        else:  # a limit written with units ("1 nm"): checked by simtool after conversion
            notes.append(f"{'Minimum' if key == 'minimum' else 'Maximum'}: {value}.")


def property_schema(item: Declaration) -> dict[str, Any]:
    """The JSON Schema of one input (see the module table)."""
    schema: dict[str, Any] = {"title": item.name.replace("_", " ")}
    notes: list[str] = []
    kind = item.type
    if kind == "Boolean":
        schema["type"] = "boolean"
    elif kind == "Integer":
        schema["type"] = "integer"
        _limits(schema, item, notes)
    elif kind == "Number":
        schema["type"] = ["number", "string"] if item.units else "number"
        _limits(schema, item, notes)
        if item.units:
            notes.append(
                f"Units: {item.units}. Give a number in {item.units}, or a string with units of the same "
                f'kind (e.g. "{_example(item)}").'
            )
    elif kind in ("Text", "Tag"):
        schema["type"] = "string"
        if kind == "Tag":
            schema["maxLength"] = TAG_MAX_LENGTH
    elif kind == "Choice":
        schema["type"] = "string"
        schema["enum"] = [str(option) for option in item.options or ()]
    elif kind == "List":
        schema["type"] = "array"
    elif kind == "Dict":
        schema["type"] = "object"
    elif kind == "Array":
        schema["type"] = "array"
        schema["items"] = {"type": ["number", "array", "string"] if item.units else ["number", "array"]}
        if item.units:
            notes.append(f"Units: {item.units} (numbers in {item.units}, or strings with units).")
        for key, value in (("Minimum", item.minimum), ("Maximum", item.maximum)):
            if value is not None:
                notes.append(f"{key} of each element: {value}.")
    elif kind == "File":
        schema["anyOf"] = [{"type": "string", "description": "the file's text"}, FILE_OBJECT]
    elif kind == "Image":
        schema.update(FILE_OBJECT)
        notes.append("An image file (PNG, JPEG, GIF...), base64.")
    elif kind == "Element":
        schema["type"] = "string"
        notes.append(
            f'An element\'s symbol or name (e.g. "Si"); the notebook receives its {item.property or "symbol"}.'
        )
    default = _default(item)
    if default is not None:
        schema["default"] = default
    about = item.description
    if about and about[-1] not in ".!?":
        about += "."
    text = " ".join(part for part in (about, *notes) if part)
    if text:
        schema["description"] = text
    return schema


def _example(item: Declaration) -> str:
    value = item.value if isinstance(item.value, (int, float)) and not isinstance(item.value, bool) else 1
    return f"{value} {item.units}"


def _default(item: Declaration) -> Any:
    if item.value is None or item.type in ("File", "Image"):
        return None
    return item.value


def input_schema(spec: Sim2LSpec) -> GeneratedSchema:
    """``{"type": "object", "properties": {...}, "additionalProperties": false}`` for ``spec``'s inputs."""
    return GeneratedSchema(
        type="object",
        properties={name: property_schema(item) for name, item in spec.inputs.items()},
        additionalProperties=False,
    )


def outputs_text(spec: Sim2LSpec) -> str:
    """One line per output: ``name (Type, units): description``."""
    lines = []
    for name, item in spec.outputs.items():
        kind = f"{item.type}, {item.units}" if item.units else item.type
        lines.append(f"- {name} ({kind}){': ' + item.description if item.description else ''}")
    return "\n".join(lines)
