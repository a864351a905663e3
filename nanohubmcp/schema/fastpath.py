"""A fast yes-only pre-check for the common, simple input schemas.

jsonschema interprets the schema on every call (about 35 µs for two number arguments, a tenth
of a whole ``tools/call``). fastjsonschema (already installed: nbformat depends on it) compiles
a schema to Python code and checks the same two arguments in under 2 µs. We use it only as a
*yes* oracle, only for schemas made of keywords whose meaning is identical in Draft-07 (what
fastjsonschema implements) and Draft 2020-12; anything it rejects — and every schema outside
that set — goes to jsonschema, which alone decides failures and writes the messages.

fastjsonschema writes the values a check needs into Python source with ``repr``. So only a
schema's validation keywords are compiled (``default``, ``examples``, ``title``… never reach
the generated code, whatever their values), and only when every value in them is a plain JSON
builtin whose ``repr`` is a literal; any other schema gets no fast path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# Keywords whose Draft-07 and 2020-12 meanings agree. Left out on purpose: $ref/$defs,
# prefixItems/array-form items, format (format sets differ), pattern (kept with jsonschema),
# dependencies, if/then/else, contentEncoding, multipleOf (float rounding differs).
# A format no validator checks is an annotation in both drafts: ``password`` (OpenAPI's, our Secret's).
_ANNOTATION_FORMATS = {"password"}
_SCHEMA_VALUED = {"not", "additionalProperties", "items"}
_SCHEMA_LISTS = {"anyOf", "allOf", "oneOf"}
_DATA_VALUED = {
    "type", "required", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
}
# Checked by no validator: left out of what is compiled, so a default never reaches generated code.
_ANNOTATIONS = {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}


class _NoFastPath(Exception):
    """The schema (or a value in it) is outside what the fast path compiles."""


def _literal(value: object) -> Any:
    """A copy of ``value`` when everything in it is an exact JSON builtin whose ``repr`` is a Python
    literal (a finite float, an int, a str, a bool, None), in lists and str-keyed dicts.

    fastjsonschema writes every value a check needs into its generated source with ``repr``: a numpy
    float's repr (``np.float64(1.5)``) or any object's made a check that raised ``NameError`` on every
    call, and ``inf`` is a name too. Subclasses (numpy scalars, an ``IntEnum``) are not converted:
    their ``==`` may differ from the builtin's, and jsonschema (which decides) sees the originals.
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float and math.isfinite(value):
        return value
    if isinstance(value, list):
        return [_literal(item) for item in value]
    if isinstance(value, dict):
        return {_key(k): _literal(v) for k, v in value.items()}
    raise _NoFastPath


def _key(name: object) -> str:
    if type(name) is not str:
        raise _NoFastPath
    return name


def _compilable(schema: object) -> Any:
    """The copy of ``schema`` fastjsonschema compiles: its validation keywords only, every value
    passed by :func:`_literal`. Raises :class:`_NoFastPath` for anything outside the safe set."""
    if type(schema) is bool:
        return schema
    if not isinstance(schema, dict):  # GeneratedSchema is a dict
        raise _NoFastPath
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key in _DATA_VALUED:
            if key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                raise _NoFastPath  # the Draft-4 boolean form means something else
            kept[key] = _literal(value)
        elif key == "format":
            if type(value) is not str or value not in _ANNOTATION_FORMATS:
                raise _NoFastPath
        elif key == "properties":
            if not isinstance(value, dict):
                raise _NoFastPath
            kept[key] = {_key(name): _compilable(sub) for name, sub in value.items()}
        elif key in _SCHEMA_VALUED:
            kept[key] = _compilable(value)
        elif key in _SCHEMA_LISTS:
            if not isinstance(value, list):
                raise _NoFastPath
            kept[key] = [_compilable(sub) for sub in value]
        else:
            raise _NoFastPath
    return kept


def compile_check(schema: dict[str, Any]) -> tuple[Callable[[Any], object], type[Exception]] | None:
    """The compiled check of ``schema`` and the exception it raises for a value it does not
    accept (``check(value)`` returns when ``schema`` certainly accepts ``value``), or None.

    None means "no fast path for this schema" (it uses keywords outside the safe set, or
    fastjsonschema is unavailable or refuses it). A refusal proves nothing: ask jsonschema.
    """
    try:
        compilable = _compilable(schema)
    except _NoFastPath:
        return None
    try:
        import fastjsonschema
    except ImportError:
        return None
    try:
        check = fastjsonschema.compile(
            {**compilable, "$schema": "http://json-schema.org/draft-07/schema#"}, use_default=False, use_formats=False)
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
