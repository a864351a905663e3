"""A fast yes-only pre-check for the common, simple input schemas.

jsonschema interprets the schema on every call (about 35 µs for two number arguments, a tenth
of a whole ``tools/call``). fastjsonschema (already installed: nbformat depends on it) compiles
a schema to Python code and checks the same two arguments in under 2 µs. We use it only as a
*yes* oracle, only for schemas made of keywords whose meaning is identical in Draft-07 (what
fastjsonschema implements) and Draft 2020-12; anything it rejects — and every schema outside
that set — goes to jsonschema, which alone decides failures and writes the messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Keywords whose Draft-07 and 2020-12 meanings agree. Left out on purpose: $ref/$defs,
# prefixItems/array-form items, format (format sets differ), pattern (kept with jsonschema),
# dependencies, if/then/else, contentEncoding, multipleOf (float rounding differs).
# A format no validator checks is an annotation in both drafts: ``password`` (OpenAPI's, our Secret's).
_ANNOTATION_FORMATS = {"password"}
_SCHEMA_VALUED = {"not", "additionalProperties", "items"}
_SCHEMA_LISTS = {"anyOf", "allOf", "oneOf"}
_PLAIN = {
    "type", "required", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
}


def _safe(schema: object) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key in _PLAIN:
            if key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                return False  # the Draft-4 boolean form means something else
            continue
        if key == "format":
            if value not in _ANNOTATION_FORMATS:
                return False
        elif key == "properties":
            if not isinstance(value, dict) or not all(_safe(v) for v in value.values()):
                return False
        elif key in _SCHEMA_VALUED:
            if not _safe(value):
                return False
        elif key in _SCHEMA_LISTS:
            if not isinstance(value, list) or not all(_safe(v) for v in value):
                return False
        else:
            return False
    return True


def compile_check(schema: dict[str, Any]) -> tuple[Callable[[Any], object], type[Exception]] | None:
    """The compiled check of ``schema`` and the exception it raises for a value it does not
    accept (``check(value)`` returns when ``schema`` certainly accepts ``value``), or None.

    None means "no fast path for this schema" (it uses keywords outside the safe set, or
    fastjsonschema is unavailable or refuses it). A refusal proves nothing: ask jsonschema.
    """
    if not _safe(schema):
        return None
    try:
        import fastjsonschema
    except ImportError:
        return None
    try:
        check = fastjsonschema.compile(
            {**schema, "$schema": "http://json-schema.org/draft-07/schema#"}, use_default=False, use_formats=False)
    except Exception:  # a schema fastjsonschema cannot compile simply has no fast path
        return None
    return check, fastjsonschema.JsonSchemaException


def compile_fast(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A function answering True when ``schema`` certainly accepts a value, or None (see
    :func:`compile_check`). A False answer proves nothing: ask jsonschema.
    """
    compiled = compile_check(schema)
    if compiled is None:
        return None
    check, error = compiled

    def accepts(value: object) -> bool:
        try:
            check(value)
        except error:
            return False
        return True

    return accepts
