"""The constraints an ``Annotated`` type carries (pydantic's ``Field``, annotated_types) -> JSON Schema keywords.

pydantic's ``Field(gt=0, min_length=2, pattern=...)`` keeps its constraints as annotated_types objects in
``FieldInfo.metadata``; ``Annotated[int, Gt(0)]`` (or ``Interval(gt=0, le=1)``, ``Len(1, 5)``) names them directly.
Each becomes the JSON Schema keyword that says the same of the JSON value, so the client sees it in the
``inputSchema`` and the validation every call already gets enforces it:

======================================  =======================================================================
``Gt``, ``Ge`` (``gt=``, ``ge=``)       ``exclusiveMinimum``, ``minimum`` (a number or integer schema)
``Lt``, ``Le`` (``lt=``, ``le=``)       ``exclusiveMaximum``, ``maximum``
``MultipleOf`` (``multiple_of=``)       ``multipleOf``
``MinLen``, ``MaxLen``, ``Len``         ``minLength``/``maxLength`` (string), ``minItems``/``maxItems``
(``min_length=``, ``max_length=``)      (array), ``minProperties``/``maxProperties`` (object)
``pattern=``                            ``pattern`` (a string schema; an ECMA-262 regular expression, see below)
``Field(title=, examples=,``            ``title``, ``examples``, the dict merged in, ``"deprecated": true``
``json_schema_extra={}, deprecated=)``
======================================  =======================================================================

Two bounds of one kind keep the tighter. A pattern Python's ``re`` refuses (``^[A-Z][a-z?$``) is refused naming
the regex error (it failed every call); so are bounds no value meets (``gt=10, lt=5``: :func:`check_range`).
A pattern is published as written and checked as ECMA-262 reads it
(``$`` the end of the text, not before a final newline: :mod:`.ecma_pattern`, as pydantic's check and a client's
do); one Python reads otherwise (``\\Z``, ``(?P<n>...)``, an inline flag) and a compiled pattern with flags
(``re.I``: JSON Schema's ``pattern`` has none) are refused naming it. A float ``multiple_of`` is checked within a
float's error (``0.3`` is a multiple of ``0.1``: :mod:`.keywords`). A constraint no keyword can say (a
``Predicate``, ``max_digits``, ``strict=True``, ``strip_whitespace``, a ``Timezone`` — ``Timezone(None)``, a naive
datetime, too —, a bound that is not a number, a bound on a value that is not a JSON number, a length of base64
``bytes``) and a ``Field`` argument a parameter would ignore (``default``, ``alias``) raise :class:`NotExpressible`:
registration refuses the function naming it, rather than accept values the annotation forbids. Objects of other
libraries in ``Annotated`` are left alone. Nothing is imported: annotated_types and pydantic are loaded whenever an
annotation holds their objects.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from typing import Any

from nanohubmcp.schema.ecma_pattern import python_only, regex_error

__all__ = ["NotExpressible", "check_range", "keywords_of"]

_BOUNDS = {
    "gt": ("exclusiveMinimum", max), "ge": ("minimum", max), "lt": ("exclusiveMaximum", min), "le": ("maximum", min),
}
_LENGTHS = {
    "min_length": ({"string": "minLength", "array": "minItems", "object": "minProperties"}, max),
    "max_length": ({"string": "maxLength", "array": "maxItems", "object": "maxProperties"}, min),
}
_NUMBERS = {"number", "integer"}
_NO_OP = {"strict": False, "strip_whitespace": False, "to_lower": False, "to_upper": False}
"""Flags whose value here asks for nothing (pydantic's defaults)."""
_WIRE_KEPT = {"allow_inf_nan"}
"""Asked of a value JSON already settles: the wire refuses ``NaN`` and ``Infinity`` (``protocol.jsondec``)."""
_NONE_ASKS = {"tz"}
"""Fields whose ``None`` asks for something (``Timezone(None)``: a naive datetime); elsewhere ``None`` is unset."""
_FIELD_KEPT = {"description", "title", "examples", "json_schema_extra", "deprecated"}
_FIELD_ADVICE = {
    "default": "give the default in the signature (`x: int = 3`)",
    "default_factory": "give the default in the signature (`x: list[int] | None = None`) and make it in the body",
    "alias": "name the parameter as clients should send it",
    "validation_alias": "name the parameter as clients should send it",
}


class NotExpressible(ValueError):
    """A constraint or ``Field`` argument the tool's JSON Schema cannot say; the message names it and what to do."""


def keywords_of(item: object, schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema keywords ``item`` (one object of an ``Annotated``'s metadata) adds to ``schema`` (the
    annotated type's), merged with the ones ``schema`` has (a bound already there: the tighter kept); ``{}`` for an
    object that is neither a pydantic ``FieldInfo`` nor annotated_types metadata.

    Raises:
        NotExpressible: ``item`` asks for something no keyword says, or a ``Field`` argument a parameter ignores.
    """
    fields = sys.modules.get("pydantic.fields")
    if fields is not None and isinstance(item, fields.FieldInfo):
        return _field(item, schema)
    at = sys.modules.get("annotated_types")
    if at is None:
        return {}
    if isinstance(item, at.GroupedMetadata):  # Interval, Len, pydantic's StringConstraints
        found: dict[str, Any] = {}
        for part in item:
            found.update(keywords_of(part, {**schema, **found}))
        return found
    if isinstance(item, at.BaseMetadata):
        return _metadata(item, schema)
    return {}


def check_range(schema: dict[str, Any]) -> None:
    """Refuse bounds no value meets (``Field(gt=10, lt=5)``: every call would be refused, with two messages).

    Raises:
        NotExpressible: ``"no number is greater than 10 and less than 5: ..."``; so for lengths
            (``min_length=5, max_length=2``).
    """
    low = [(schema[k], k == "exclusiveMinimum") for k in ("minimum", "exclusiveMinimum") if _is_number(schema.get(k))]
    high = [(schema[k], k == "exclusiveMaximum") for k in ("maximum", "exclusiveMaximum") if _is_number(schema.get(k))]
    for lo, lo_open in low:
        for hi, hi_open in high:
            if lo > hi or (lo == hi and (lo_open or hi_open)):
                said_lo = f"greater than {lo!r}" if lo_open else f"at least {lo!r}"
                said_hi = f"less than {hi!r}" if hi_open else f"at most {hi!r}"
                raise NotExpressible(f"no number is {said_lo} and {said_hi}: every call would be refused; "
                                     "fix the bounds")
    for low_key, high_key in (("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties")):
        if _is_number(schema.get(low_key)) and _is_number(schema.get(high_key)) and schema[low_key] > schema[high_key]:
            raise NotExpressible(f"no length is at least {schema[low_key]} and at most {schema[high_key]}: every "
                                 "call would be refused; fix min_length / max_length")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _field(info: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic ``Field(...)``'s keywords: its own arguments', then those of its constraints (its ``metadata``)."""
    found: dict[str, Any] = {}
    for name in getattr(info, "_attributes_set", {}):  # the arguments given (its constraints are in .metadata)
        value = getattr(info, name, None)
        if name not in _FIELD_KEPT:
            advice = _FIELD_ADVICE.get(name, "leave it out, or check it in the function and raise ValueError")
            raise NotExpressible(f"Field({name}={value!r}) does nothing for a tool's argument; {advice}")
        if name == "json_schema_extra":
            if not isinstance(value, dict):
                raise NotExpressible(f"Field(json_schema_extra={value!r}) is not a dict; give the keywords as a dict")
            found.update(value)
        elif name == "deprecated":
            if value:
                found["deprecated"] = True
        elif name != "description" and value is not None:  # (the description is the caller's: it ranks texts)
            found[name] = list(value) if name == "examples" else value
    for item in info.metadata:
        found.update(keywords_of(item, {**schema, **found}))
    return found


def _metadata(item: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """One annotated_types (or pydantic) constraint object's keywords."""
    given = (
        {f.name: getattr(item, f.name) for f in dataclasses.fields(item)} if dataclasses.is_dataclass(item)
        else dict(vars(item))
    )
    found: dict[str, Any] = {}
    for name, value in given.items():
        unset = value is None and name not in _NONE_ASKS
        if unset or (name in _NO_OP and _NO_OP[name] is value) or name in _WIRE_KEPT:
            continue
        here = {**schema, **found}
        if name in _BOUNDS or name == "multiple_of":
            found.update(_number_keyword(item, name, value, here))
        elif name in _LENGTHS:
            found.update(_length_keywords(item, name, value, here))
        elif name == "pattern" and _types(here) - {"null"} == {"string"}:
            found["pattern"] = _pattern(item, value)
        else:
            raise NotExpressible(
                f"{item!r} cannot be said in the JSON Schema of a value {_kind(here)}, so a client's value would not "
                "be checked against it; check it in the function (raise ValueError naming the rule) and say it in the "
                "parameter's description"
            )
    return found


def _number_keyword(item: object, name: str, value: object, schema: dict[str, Any]) -> dict[str, Any]:
    types = _types(schema)
    if not types & _NUMBERS or types - _NUMBERS - {"null"}:
        raise NotExpressible(f"{item!r} bounds a number, but the JSON value it would bound is {_kind(schema)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise NotExpressible(f"{item!r}: the bound must be a finite int or float, which JSON can write")
    number: int | float = int(value) if isinstance(value, int) else float(value)
    if name == "multiple_of":
        if number <= 0:
            raise NotExpressible(f"{item!r}: multiple_of must be greater than 0")
        return {"multipleOf": number}
    keyword, tighter = _BOUNDS[name]
    return {keyword: tighter(schema[keyword], number) if keyword in schema else number}


def _pattern(item: object, value: object) -> str:
    """The text of a ``pattern=`` (a ``str`` or a compiled ``re.Pattern`` without flags) that ECMA-262 reads as
    Python does."""
    if isinstance(value, re.Pattern):
        flags = value.flags & ~re.UNICODE  # (every str pattern has UNICODE: what no flag means)
        if not isinstance(value.pattern, str):
            raise NotExpressible(f"{item!r}: a bytes pattern cannot match text; give a str pattern")
        if flags:
            raise NotExpressible(
                f"{item!r}: the pattern's flag {re.RegexFlag(flags)!r} cannot be said in JSON Schema (a pattern has "
                "no flags), so clients would check another rule; write it into the pattern ([A-Za-z] for re.I)"
            )
        value = value.pattern
    if not isinstance(value, str):
        raise NotExpressible(f"{item!r}: the pattern must be a str or a compiled re.Pattern")
    broken = regex_error(value)
    if broken is not None:
        raise NotExpressible(f"the pattern {value!r} is not a regular expression: {broken}; fix it, or every call "
                             "would fail")
    construct = python_only(value)
    if construct is not None:
        raise NotExpressible(
            f"{item!r}: the pattern uses {construct} (JSON Schema patterns are ECMA-262 regular expressions, "
            "which clients compile)"
        )
    return value


def _length_keywords(item: object, name: str, value: object, schema: dict[str, Any]) -> dict[str, Any]:
    by_type, tighter = _LENGTHS[name]
    types = _types(schema)
    if "contentEncoding" in schema:
        raise NotExpressible(f"{item!r}: the value arrives encoded ({schema['contentEncoding']}), whose text "
                             "length is not its length; check the length in the function")
    keywords = [by_type[t] for t in ("string", "array", "object") if t in types]
    if not keywords or types - set(by_type) - {"null"}:
        raise NotExpressible(
            f"{item!r} bounds the length of a text, list or dict, but the JSON value it would bound is {_kind(schema)}"
        )
    assert isinstance(value, int)
    return {k: tighter(schema[k], value) if k in schema else value for k in keywords}


def _types(schema: dict[str, Any]) -> set[str]:
    """The JSON types ``schema`` names at its top (none for ``{}``, an ``anyOf``, a ``$ref``)."""
    kind = schema.get("type")
    return {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()


def _kind(schema: dict[str, Any]) -> str:
    """``of type string`` / ``of type number or null`` from the schema's JSON types; ``of any type`` for none."""
    types = sorted(_types(schema))
    return f"of type {' or '.join(types)}" if types else "of any type"
