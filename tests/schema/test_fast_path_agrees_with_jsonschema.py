"""The fastjsonschema pre-check may only ever say "valid" where jsonschema says so too."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from nanohubmcp.schema.fastpath import compile_fast

VALUES: list[Any] = [
    0, 1, -3, 5.0, 5.5, 10**20, True, False, None, "", "5", "abc", [], [1, "a"], [1, 1.0], [1, True],
    [0, False], {}, {"a": 1}, {"a": 1, "b": 1.0}, {"a": None}, {"a": "x", "b": 2}, {"extra": 1},
]
SCHEMAS: list[dict[str, Any]] = [
    *({"type": t} for t in ("integer", "number", "string", "boolean", "null", "array", "object")),
    {"type": ["number", "null"]}, {"enum": [1, "a", None]}, {"enum": [False]}, {"const": 1}, {"const": 0},
    {"const": True}, {"minimum": 2}, {"exclusiveMaximum": 5}, {"minLength": 1}, {"maxItems": 1},
    {"type": "array", "items": {"type": "integer"}}, {"type": "array", "uniqueItems": True},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"not": {"type": "null"}},
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
     "required": ["a", "b"], "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "additionalProperties": True},
    {"type": "object", "minProperties": 1, "maxProperties": 1},
    {"type": "string", "format": "password", "writeOnly": True},  # Secret: an annotation, checked by no one
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:60])
def test_the_fast_path_never_accepts_what_jsonschema_refuses(schema: dict[str, Any]) -> None:
    fast = compile_fast(schema)
    assert fast is not None
    reference = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for value in VALUES:
        assert fast(value) == reference.is_valid(value), value


@pytest.mark.parametrize("schema", [
    {"type": "string", "format": "email"},
    {"type": "string", "pattern": "^a"},
    {"$defs": {"x": {"type": "integer"}}, "$ref": "#/$defs/x"},
    {"type": "array", "prefixItems": [{"type": "integer"}]},
    {"type": "number", "multipleOf": 0.1},
    {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}},
    {"exclusiveMinimum": True},
])
def test_schemas_whose_meaning_differs_between_drafts_get_no_fast_path(schema: dict[str, Any]) -> None:
    assert compile_fast(schema) is None


def test_the_fast_path_never_fills_in_defaults() -> None:
    fast = compile_fast({"type": "object", "properties": {"a": {"type": "integer", "default": 3}}})
    assert fast is not None
    value: dict[str, Any] = {}
    assert fast(value)
    assert value == {}


def test_invalid_arguments_still_get_jsonschema_messages() -> None:
    from nanohubmcp.errors import InvalidArguments
    from nanohubmcp.schema import ArgumentValidator

    validator = ArgumentValidator({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"],
                                   "additionalProperties": False}, name="add")
    assert validator.validate({"a": 1.5}) == {"a": 1.5}
    with pytest.raises(InvalidArguments, match=r"arguments\.a: \"x\" is not of type \"number\""):
        validator.validate({"a": "x"})


