"""Simple example arguments for a tool, made up from its ``inputSchema`` (what ``scripts/demo_client.py`` calls a
server's tool with when the user names none and the server has no ``add`` nor a tool that needs no argument)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["example_arguments", "example_value"]

EXAMPLE_NUMBER = 2
"""What a required number or integer argument gets from :func:`example_arguments`."""
QUOTED_EXAMPLE = re.compile(r"e\.g\.,?\s*[\"'`]([^\"'`]+)[\"'`]")
"""An example a parameter's description quotes: ``e.g., "1,2,3,4,5"``."""


def example_value(schema: dict[str, Any]) -> Any:
    """A simple value fitting ``schema`` (a JSON Schema of one argument), or ``...`` when none is made up: its
    ``default``, first ``examples`` or ``enum`` item; a number 2; true; a string the description quotes after
    "e.g." (else "2"); a list of three such items; None for ``null``."""
    for key in ("default", "examples", "enum"):
        if key in schema:
            value = schema[key]
            return value[0] if key != "default" and isinstance(value, list) and value else value
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "integer" in kinds or "number" in kinds:
        return EXAMPLE_NUMBER
    if "boolean" in kinds:
        return True
    if "string" in kinds:
        quoted = QUOTED_EXAMPLE.search(schema.get("description") or "")
        return quoted.group(1) if quoted else str(EXAMPLE_NUMBER)
    if "array" in kinds:
        item = example_value(schema.get("items") or {})
        return ... if item is ... else [item] * 3
    if "null" in kinds:
        return None
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            value = example_value(option)
            if value is not ...:
                return value
    return ...


def example_arguments(input_schema: dict[str, Any]) -> dict[str, Any] | None:
    """Simple example values (:func:`example_value`) for the required arguments of a tool's ``inputSchema``, or
    None when one of them cannot be made up (an object, a reference, a schema without a type)."""
    properties = input_schema.get("properties") or {}
    arguments = {}
    for name in input_schema.get("required") or []:
        value = example_value(properties.get(name) or {})
        if value is ...:
            return None
        arguments[name] = value
    return arguments
