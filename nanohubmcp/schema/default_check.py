"""Whether a parameter's default breaks a constraint of its own schema (``x: Annotated[int, Field(gt=0)] = -1``).

A call leaving such a parameter out runs the function with its default, a value no client may send: the author
meant one or the other. :func:`default_breaks` says which constraint the default breaks, so the registration
(:func:`nanohubmcp.schema.generate.describe_function`) refuses it naming the parameter, the default and the
constraint. Checked without jsonschema (a registration never imports it), as a call's validator reads the same
keywords:

=====================================================  ============================================================
``minimum`` ``maximum`` ``exclusiveMinimum``           a number's bounds (``Field(ge=, le=, gt=, lt=)``, ``Ge``...)
``exclusiveMaximum`` ``multipleOf``                    and step (``multiple_of``: a float step within rounding)
``minLength`` ``maxLength`` ``pattern``                text (``min_length``/``max_length``; a pattern read as
                                                       ECMA-262 reads it, ``$`` the end of the text)
``minItems`` ``maxItems`` ``uniqueItems``              a list (``min_length``/``max_length``; a set's items)
``minProperties`` ``maxProperties``                    a dict
``enum`` ``const``                                     ``Literal[...]``, an ``Enum`` (a member by its name too)
``items`` ``prefixItems`` ``properties``               the same inside lists, tuples and objects
``additionalProperties`` ``anyOf`` ``oneOf`` ``allOf``
=====================================================  ============================================================

A default of another type (``x: int = "a"``) is no constraint's matter: :func:`default_mistyped` says it (the
registration warns, and leaves it out of the published schema). A default JSON cannot hold (a sentinel, a
``datetime``; NaN, which is not published), ``format`` and ``$ref`` are not checked here. A ``None`` default is
checked against the schema as published (``None`` makes it nullable).

Source: JSON Schema 2020-12 Validation § 6 (the keywords' meanings).
"""

from __future__ import annotations

import enum
import re
from typing import Any

from nanohubmcp.protocol.message_values import shown_value
from nanohubmcp.schema.ecma_pattern import ecma_search
from nanohubmcp.schema.fragments import NOT_JSON, json_default, left_out_default, unpublished_default
from nanohubmcp.schema.json_types import is_type
from nanohubmcp.schema.keywords import is_multiple
from nanohubmcp.schema.paths import format_path

__all__ = ["default_breaks", "default_mistyped", "published_member", "withheld_default"]

_SAID = {  # keyword -> (the constraint as Python writes it, what a value must be)
    "minimum": ("ge={}", "at least {}"),
    "maximum": ("le={}", "at most {}"),
    "exclusiveMinimum": ("gt={}", "greater than {}"),
    "exclusiveMaximum": ("lt={}", "less than {}"),
    "multipleOf": ("multiple_of={}", "a multiple of {}"),
    "minLength": ("min_length={}", "at least {} characters long"),
    "maxLength": ("max_length={}", "at most {} characters long"),
    "pattern": ("pattern={!r}", "text the pattern matches"),
    "minItems": ("min_length={}", "at least {} items long"),
    "maxItems": ("max_length={}", "at most {} items long"),
    "uniqueItems": ("uniqueItems (a set's items)", "items all different"),
    "minProperties": ("min_length={}", "at least {} entries"),
    "maxProperties": ("max_length={}", "at most {} entries"),
    "enum": ("enum (a Literal's or an Enum's values)", "one of {}"),
    "const": ("const {!r}", "exactly {!r}"),
}
_OWN_WORDS = ("pattern", "uniqueItems", "enum", "const")
"""Keywords said as the schema says them (no Python spelling to add)."""
_DEFS = "#/$defs/"
"""How a reference to an entry of the schema's ``$defs`` starts (pydantic's nested models)."""
_KIND = {  # the JSON type a keyword constrains (any other value passes it)
    "minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number",
    "multipleOf": "number", "minLength": "string", "maxLength": "string", "pattern": "string",
    "minItems": "array", "maxItems": "array", "uniqueItems": "array", "minProperties": "object",
    "maxProperties": "object",
}


class _Broken:
    """The first constraint a default breaks: where, which keyword, its bound, the value there. (A plain class: a
    ``NamedTuple`` costs ~0.5 M instructions to make, at the first registration.)"""

    __slots__ = ("bound", "instance", "keyword", "path")

    def __init__(self, path: tuple[str | int, ...], keyword: str, bound: Any, instance: Any) -> None:
        self.path, self.keyword, self.bound, self.instance = path, keyword, bound, instance




def default_breaks(schema: dict[str, Any], default: object, defs: dict[str, Any] | None = None) -> str | None:
    """What the parameter default ``default`` breaks of its property ``schema`` (as published, with ``default``
    and nullability), said for a message, or None when it keeps every constraint (or is not checked here: see
    the module docstring). ``defs``: the ``$defs`` a ``"#/$defs/Name"`` reference in ``schema`` leads to (a
    pydantic model's nested models); without it a ``$ref`` is not followed.

    Example:
        >>> default_breaks({"type": "integer", "exclusiveMinimum": 0}, -1)[:80]
        "its default -1 breaks its constraint gt=0 (the schema's exclusiveMinimum 0): a v"
    """
    found = _first_break(schema, default, defs)
    if found is None or found.keyword == "type":
        return None
    python, needed = _SAID[found.keyword]
    bound = found.bound
    if found.keyword == "enum" and isinstance(bound, list):
        bound = ", ".join(shown_value(each) for each in bound)
    constraint = python.format(found.bound)
    if found.keyword not in _OWN_WORDS:
        constraint += f" (the schema's {found.keyword} {shown_value(found.bound)})"
    where = "" if not found.path else f" at {format_path('default', found.path)} ({shown_value(found.instance)})"
    return (f"its default {shown_value(default)}{where} breaks its constraint {constraint}: a value must be "
            f"{needed.format(bound)}, so a call leaving it out would run the function with a value no client may "
            "send; change the default or the constraint")


def default_mistyped(schema: dict[str, Any], default: object, defs: dict[str, Any] | None = None) -> str | None:
    """Why the default ``default`` is of none of the types its property ``schema`` allows, there or inside it
    (``x: int = "abc"``, a dataclass field's ``n: int = "zz"``, ``list[int]`` defaulting to ``["a"]``), said
    for a message; None when its types fit (or it is not checked: see the module docstring). Such a default is
    left out of the published schema, and the registration warns of it: a call leaving the argument out runs
    the function with a value no client may send.

    Example:
        >>> default_mistyped({"type": "integer"}, "abc")
        "'abc' is not of its type integer"
    """
    found = _first_break(schema, default, defs)
    if found is None or found.keyword != "type":
        return None
    kinds = found.bound if isinstance(found.bound, str) else " or ".join(map(str, found.bound))
    where = "" if not found.path else f" at {format_path('default', found.path)} ({shown_value(found.instance)})"
    return f"{shown_value(default)}{where} is not of its type {kinds}"


def withheld_default(schema: dict[str, Any], default: object, defs: dict[str, Any] | None = None) -> str | None:
    """Why the default ``default`` is left out of its property ``schema`` (as :func:`.fragments.member_schema`
    made it): a number JSON cannot write (:func:`.fragments.left_out_default`), or a value of none of its types
    (``"'abc' is not of its type integer, so a call leaving it out runs the function with a value no client may
    send; change the default or the annotation"``); None when it is published (or has no JSON form at all).

    .. versionchanged:: 1.0
       A default of another type is left out and said (it was published as given)."""
    why = left_out_default(default)
    if why is None and (mistyped := default_mistyped(schema, default, defs)) is not None:
        why = (f"{mistyped}, so a call leaving it out runs the function with a value no client may send; change the "
               "default or the annotation")
    return why


def published_member(schema: dict[str, Any], default: object) -> dict[str, Any]:
    """``schema`` (a property's, from :func:`.fragments.member_schema`) without its ``"default"`` when ``default``
    is of none of its types: a published schema never holds a default it rejects."""
    if "default" not in schema or default_mistyped(schema, default) is None:
        return schema
    return {key: value for key, value in schema.items() if key != "default"}


def _first_break(schema: dict[str, Any], default: object, defs: dict[str, Any] | None) -> _Broken | None:
    """The first constraint (or type, ``keyword`` ``"type"``) the JSON form of ``default`` breaks in ``schema``."""
    value = json_default(default)
    if value is NOT_JSON and isinstance(default, (set, frozenset)):  # not published, but checked (review r39 R39-6)
        items = [json_default(each) for each in default]
        value = NOT_JSON if any(each is NOT_JSON for each in items) else items
    if value is NOT_JSON or unpublished_default(value) is not None:
        return None
    if isinstance(default, enum.Enum) and default.name in (schema.get("enum") or ()):
        return None  # an Enum published by its members' names
    found = _check(schema, value, (), defs or {})
    return found if isinstance(found, _Broken) else None


def _check(schema: object, instance: object, path: tuple[str | int, ...], defs: dict[str, Any]) -> Any:
    """A :class:`_Broken` (``keyword`` ``"type"`` for a value of none of the schema's types), or None (the value
    keeps the schema's types and constraints, and those of the ``defs`` entry a ``"#/$defs/Name"`` leads to)."""
    if not isinstance(schema, dict):
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):  # a model's entry checks its value's members: a recursive
        # model ends where its value does
        found = _check(defs.get(ref[len(_DEFS):].replace("~1", "/").replace("~0", "~")), instance, path, defs)
        if found is not None:
            return found
    kinds = schema.get("type")
    if isinstance(kinds, (str, list)):
        names = [kinds] if isinstance(kinds, str) else kinds
        if not any(isinstance(name, str) and is_type(instance, name) for name in names):
            return _Broken(path, "type", kinds, instance)
    for keyword, bound in schema.items():
        if keyword in _SAID and not _keeps(keyword, bound, instance):
            return _Broken(path, keyword, bound, instance)
    for found in _inner(schema, instance, path, defs):
        if found is not None:
            return found
    return None


def _inner(schema: dict[str, Any], instance: object, path: tuple[str | int, ...], defs: dict[str, Any]) -> Any:
    """The results of the subschemas: a list's items, an object's properties, the ``anyOf``/``oneOf`` members."""
    if isinstance(instance, list):
        found = schema.get("prefixItems")
        prefix: list[Any] = found if isinstance(found, list) else []
        for index, item in enumerate(instance):
            below = prefix[index] if index < len(prefix) else schema.get("items")
            yield _check(below, item, (*path, index), defs)
    if isinstance(instance, dict):
        named = schema.get("properties")
        known: dict[str, Any] = named if isinstance(named, dict) else {}
        for key, item in instance.items():
            yield _check(known.get(key, schema.get("additionalProperties")), item, (*path, key), defs)
    for keyword in ("anyOf", "oneOf"):
        members = schema.get(keyword)
        if isinstance(members, list) and members:
            results = [_check(member, instance, path, defs) for member in members]
            if all(result is not None for result in results):  # no member takes it as it is: a constraint first
                yield next((r for r in results if r.keyword != "type"), results[0])
    for member in schema.get("allOf") or ():
        yield _check(member, instance, path, defs)


def _keeps(keyword: str, bound: Any, instance: Any) -> bool:
    kind = _KIND.get(keyword)
    if kind is not None and not is_type(instance, kind):
        return True
    try:
        if keyword == "enum":
            return not isinstance(bound, list) or any(_same(each, instance) for each in bound)
        if keyword == "const":
            return _same(bound, instance)
        if keyword == "pattern":
            return not isinstance(bound, str) or ecma_search(bound, instance)
        if keyword == "uniqueItems":
            return not bound or len({_json_key(each) for each in instance}) == len(instance)
        if not is_type(bound, "number"):
            return True  # a malformed keyword: the schema's own check names it
        if keyword == "multipleOf":
            return bound <= 0 or is_multiple(instance, bound)
        length = instance if is_type(instance, "number") else len(instance)
        if keyword in ("minimum", "minLength", "minItems", "minProperties"):
            return bool(length >= bound)
        if keyword in ("maximum", "maxLength", "maxItems", "maxProperties"):
            return bool(length <= bound)
        return bool(length > bound) if keyword == "exclusiveMinimum" else bool(length < bound)
    except (re.error, TypeError, OverflowError):  # a pattern that is no regex: refused with its own message
        return True


def _json_key(value: object) -> object:
    """A hashable key equal for JSON-equal values, as :func:`_same` judges them (``uniqueItems`` in linear time:
    a pairwise check of a 20,000-item default took 112 s, review r39 R39-5)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, float) and value.is_integer():
        return ("number", int(value))
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, list):
        return ("array", tuple(_json_key(each) for each in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _json_key(each)) for key, each in value.items()))
    return ("other", id(value))


def _same(one: object, two: object) -> bool:
    """JSON equality: ``true`` is not ``1``; ``1.0`` is ``1``; lists and objects item by item."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_same(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_same(one[k], two[k]) for k in one)
    return bool(one == two)
