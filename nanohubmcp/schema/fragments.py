"""Small JSON Schema building blocks shared by the mapper and the signature reader.

Owns what "JSON-representable" means for published defaults, how a schema is made to
accept ``null``, and the JSON type name of a Python literal.
"""

from __future__ import annotations

import enum
from typing import Any

from nanohubmcp.schema.science import SHAPE_TEXTS

NOT_JSON: Any = object()
"""Marker for "this Python value has no JSON form"."""


def json_default(value: object) -> Any:
    """The JSON form of a default value, or ``NOT_JSON`` when it has none worth publishing.

    The form is made of builtins only: a ``float``/``int``/``str`` subclass (``np.float64``,
    ``np.str_``) becomes the plain value it holds, a numpy scalar (``np.int64``, ``np.bool_``)
    its ``item()``. Tuples become lists and Enum members their values; sets, objects and
    sentinels are not JSON. NaN and the infinities are kept, as an int of 5,000 digits is (numbers JSON
    cannot write: :func:`member_schema` leaves such a default out of the schema, and the registration warns
    of it, :func:`unpublished_default`).
    """
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if value is None or isinstance(value, bool):
        return value
    # The builtins' own conversions: a subclass's __float__/__str__ may answer something else.
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (list, tuple)):
        items = [json_default(v) for v in value]
        return NOT_JSON if any(v is NOT_JSON for v in items) else items
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        members = {str.__str__(k): json_default(v) for k, v in value.items()}
        return NOT_JSON if any(v is NOT_JSON for v in members.values()) else members
    if _numpy_scalar(value):
        held = value.item()  # type: ignore[attr-defined]
        return json_default(held) if isinstance(held, (bool, int, float, str)) else NOT_JSON
    return NOT_JSON


def _numpy_scalar(value: object) -> bool:
    """A numpy scalar (``np.int64(5)``, ``np.bool_(True)``), known without importing numpy."""
    return type(value).__module__ == "numpy" and getattr(value, "shape", None) == () and hasattr(value, "item")


def published_default(schema: dict[str, Any], value: object) -> Any:
    """The ``"default"`` to publish beside ``schema`` for ``value``, or ``NOT_JSON``.

    A default outside the schema's ``enum`` (an Enum published by member names) is not
    published either.
    """
    found = json_default(value)
    if found is not NOT_JSON and isinstance(schema.get("enum"), list) and found not in schema["enum"]:
        return NOT_JSON
    return found


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Make ``schema`` also accept ``null``: a type list when simple, else ``anyOf``.

    Annotations (``description``, ``default``, ``title``) stay on the outer schema.
    """
    if not schema:
        return schema
    notes: dict[str, Any] = {k: schema[k] for k in ("title", "description", "default") if k in schema}
    core = {k: v for k, v in schema.items() if k not in notes}
    kind = core.get("type")
    composite = {"anyOf", "oneOf", "allOf", "not", "$ref", "const", "if"} & core.keys()
    if isinstance(kind, (str, list)) and not composite:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if "null" not in kinds:
            core["type"] = [*kinds, "null"]
        if "enum" in core and None not in core["enum"]:
            core["enum"] = [*core["enum"], None]
        return {**core, **notes}
    if isinstance(core.get("enum"), list) and not composite:
        return {**core, "enum": [*core["enum"], None], **notes}
    return {"anyOf": [core, {"type": "null"}], **notes}


def member_schema(
    schema: dict[str, Any], *, has_default: bool, default: object, description: str | None
) -> dict[str, Any]:
    """The property schema of a parameter or record field.

    A ``None`` default makes it nullable; ``description`` is added unless the type already
    brought one (``Annotated``); the shape text of an array or table type (``np.ndarray``, ``pd.DataFrame``,
    ``pd.Series``: :data:`SHAPE_TEXTS`) follows it instead (``"Times in s. Given as an array of numbers ..."``);
    a JSON-representable default is published.
    """
    schema = dict(schema)
    if has_default and default is None:
        schema = nullable(schema)
    if description and schema.get("description") in SHAPE_TEXTS:  # the author's text (its units) comes first
        text = description.rstrip()
        stop = " " if text.endswith((".", "!", "?")) else ". "
        schema["description"] = f"{text}{stop}Given as {schema['description']}."
    elif description and "description" not in schema:
        schema["description"] = description
    if has_default:
        published = published_default(schema, default)
        if published is not NOT_JSON and unpublished_default(published) is None:
            schema["default"] = published
    return schema


def unpublished_default(value: object) -> str | None:
    """Why the JSON form of a default, ``value`` (from :func:`json_default`), is left out of a generated
    schema (``"nan has no JSON form"``, a number JSON cannot write: NaN, an infinity, an int of over 4,300
    digits, anywhere in it), or None when it is published. The function's own default still applies when a
    client leaves the argument out; text a client cannot read (a UTF-16 surrogate) is not left out here but
    refused at registration."""
    from nanohubmcp.schema.json_form import json_form_problem

    found = json_form_problem(value, [], root="default", texts=False)
    return None if found is None else found.split(";", 1)[0].replace(" at default ", " ")


def left_out_default(default: object) -> str | None:
    """Why a parameter's or record field's default, ``default`` (the Python value), is left out of its generated
    schema (:func:`unpublished_default` of its :func:`json_default`), or None: published, or no JSON value at all
    (a sentinel, a ``default_factory``), which no schema could say. (A default of none of its types is left out
    too: :func:`.default_check.withheld_default`.)"""
    value = json_default(default)
    return None if value is NOT_JSON else unpublished_default(value)

def json_type(value: object) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None
