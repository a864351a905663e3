"""ArgumentValidator / OutputValidator: every keyword enforced, messages with paths, bad schemas refused."""

from __future__ import annotations

import time

import pytest

from nanohubmcp.errors import InvalidArguments, RegistrationError, ToolError
from nanohubmcp.schema import ArgumentValidator, OutputValidator, describe_function


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def validator_for(fn) -> ArgumentValidator:
    return ArgumentValidator(
        describe_function(fn, kind="tool", name=fn.__name__).input_schema, name=fn.__name__
    )


def test_message_names_the_tool_and_the_json_path() -> None:
    with pytest.raises(InvalidArguments) as caught:
        validator_for(add).validate({"a": 1, "b": "x"})
    assert str(caught.value) == "Invalid arguments for tool 'add': arguments.b: \"x\" is not of type \"number\""
    assert caught.value.errors == [str(caught.value)]
    assert isinstance(caught.value, ToolError)


def test_one_line_per_violation_sorted_by_path() -> None:
    with pytest.raises(InvalidArguments) as caught:
        validator_for(add).validate({"a": "x", "c": 1})
    assert caught.value.errors == [
        "Invalid arguments for tool 'add': arguments: \"b\" is a required property",
        "Invalid arguments for tool 'add': arguments: "
        'Additional properties are not allowed ("c" was unexpected)',
        "Invalid arguments for tool 'add': arguments.a: \"x\" is not of type \"number\"",
    ]
    assert str(caught.value) == "\n".join(caught.value.errors)


def test_nested_paths_use_indexes_and_quoted_keys() -> None:
    schema = {
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "odd": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
    }
    validator = ArgumentValidator(schema, name="plot")
    with pytest.raises(InvalidArguments) as caught:
        validator.validate({"points": [{"x": 1}, {"x": "far"}], "odd": {"a key": "v"}})
    assert caught.value.errors == [
        "Invalid arguments for tool 'plot': arguments.odd[\"a key\"]: \"v\" is not of type \"integer\"",
        "Invalid arguments for tool 'plot': arguments.points[1].x: \"far\" is not of type \"number\"",
    ]


def test_json_semantics_for_numbers_and_booleans() -> None:
    def count(n: int) -> int:
        return n

    validator = validator_for(count)
    assert validator.validate({"n": 5.0}) == {"n": 5.0}
    with pytest.raises(InvalidArguments, match="true is not of type \"integer\""):
        validator.validate({"n": True})
    with pytest.raises(InvalidArguments, match=r"5\.5 is not of type \"integer\""):
        validator.validate({"n": 5.5})


def test_null_for_an_optional_non_nullable_property_is_dropped_so_the_default_applies() -> None:
    def scaled(value: float, factor: float = 2.0, note: str | None = "n", other: float = None) -> float:  # noqa: RUF013
        return value * factor

    validator = validator_for(scaled)
    assert validator.validate({"value": 1, "factor": None, "note": None, "other": None}) == {
        "value": 1,
        "note": None,
        "other": None,
    }
    with pytest.raises(InvalidArguments, match=r"arguments\.value: null is not of type \"number\""):
        validator.validate({"value": None})


def test_missing_arguments_mean_an_empty_object() -> None:
    def nothing() -> None:
        pass

    assert validator_for(nothing).validate(None) == {}
    with pytest.raises(InvalidArguments, match="arguments: \"b\" is a required property"):
        validator_for(add).validate(None)


def test_non_object_arguments_are_reported_at_the_root() -> None:
    with pytest.raises(InvalidArguments, match=r"arguments: \[1, 2\] is not of type \"object\""):
        validator_for(add).validate([1, 2])  # type: ignore[arg-type]


COMPOSED = {
    "type": "object",
    "$defs": {"positive": {"type": "number", "exclusiveMinimum": 0}},
    "properties": {
        "all": {"allOf": [{"type": "integer"}, {"minimum": 10}]},
        "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]},
        "not": {"not": {"const": "forbidden"}},
        "cond": {
            "type": "object",
            "if": {"properties": {"unit": {"const": "K"}}},
            "then": {"properties": {"value": {"minimum": 0}}},
            "else": {"properties": {"value": {"minimum": -273.15}}},
        },
        "ref": {"$ref": "#/$defs/positive"},
        "email": {"type": "string", "format": "email"},
        "set": {"type": "array", "uniqueItems": True},
        "pattern": {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}},
    },
}


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"all": 5}, "arguments.all: 5 is less than the minimum of 10"),
        ({"any": 1.5}, "arguments.any: 1.5 is not valid under any of the given schemas"),
        ({"one": 7}, "arguments.one: 7 is valid under each of"),
        ({"not": "forbidden"}, 'arguments.not: "forbidden" should not be valid under'),
        ({"cond": {"unit": "K", "value": -1}}, "arguments.cond.value: -1 is less than the minimum of 0"),
        (
            {"cond": {"unit": "C", "value": -300}},
            "arguments.cond.value: -300 is less than the minimum of -273.15",
        ),
        ({"ref": 0}, "arguments.ref: 0 is less than or equal to the exclusive minimum of 0"),
        ({"email": "not-an-address"}, 'arguments.email: "not-an-address" is not a "email"'),
        ({"set": [1, 1]}, "arguments.set: [1, 1] has non-unique elements"),
        ({"pattern": {"n_x": "s"}}, "arguments.pattern.n_x: \"s\" is not of type \"integer\""),
    ],
)
def test_composition_and_format_keywords_are_enforced(arguments, fragment) -> None:
    validator = ArgumentValidator(COMPOSED, name="composed")
    with pytest.raises(InvalidArguments) as caught:
        validator.validate(arguments)
    assert fragment in str(caught.value)


def test_composed_schema_accepts_good_arguments() -> None:
    good = {
        "all": 12,
        "any": "s",
        "one": 3,
        "not": "fine",
        "cond": {"unit": "K", "value": 1},
        "ref": 0.5,
        "email": "a@example.org",
        "set": [1, 2],
        "pattern": {"n_x": 1, "other": "s"},
    }
    assert ArgumentValidator(COMPOSED, name="composed").validate(good) is good


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "object", "properties": {"a": {"type": "decimal"}}}, "tool 'bad': invalid input schema: "),
        ({"type": "object", "required": "a"}, "'a' is not of type 'array'"),
        ({"$schema": "https://example.org/my-dialect", "type": "object"}, "unknown $schema"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            "$ref '#/$defs/missing' points nowhere",
        ),
        (["not", "an", "object"], "expected a JSON object, got list"),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://example.org/units.json"}}},
            "other documents are not fetched",
        ),
    ],
)
def test_invalid_schemas_are_refused_at_registration(schema, fragment) -> None:
    with pytest.raises(RegistrationError) as caught:
        ArgumentValidator(schema, name="bad")
    assert fragment in str(caught.value)
    assert str(caught.value).startswith("tool 'bad': invalid input schema: ")


def test_references_to_the_meta_schemas_resolve_without_the_network() -> None:
    schema = {
        "type": "object",
        "properties": {"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}},
    }
    validator = ArgumentValidator(schema, name="meta")
    assert validator.validate({"schema": {"type": "string"}}) == {"schema": {"type": "string"}}
    with pytest.raises(InvalidArguments, match=r"arguments\.schema"):
        validator.validate({"schema": {"type": 5}})


def test_older_dialects_named_by_schema_are_honoured() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "dependencies": {"a": ["b"]},
    }
    validator = ArgumentValidator(schema, name="old")
    with pytest.raises(InvalidArguments, match='"b" is a dependency of "a"'):
        validator.validate({"a": 1})


def test_huge_values_are_shortened_in_messages() -> None:
    with pytest.raises(InvalidArguments) as caught:
        validator_for(add).validate({"a": 1, "b": "x" * 10_000})
    assert len(str(caught.value)) <= 300 + len("Invalid arguments for tool 'add': ")
    assert str(caught.value).endswith("…")


def test_output_validator_lists_problems_and_is_empty_when_valid() -> None:
    schema = {
        "type": "object",
        "properties": {"speed": {"type": "number"}, "unit": {"enum": ["m/s"]}},
        "required": ["speed"],
    }
    validator = OutputValidator(schema, name="wave")
    assert validator.errors({"speed": 3.0, "unit": "m/s"}) == []
    assert validator.errors({"speed": "fast", "unit": "km/h"}) == [
        "result.speed: \"fast\" is not of type \"number\"",
        "result.unit: \"km/h\" is not one of [\"m/s\"]",
    ]
    with pytest.raises(RegistrationError, match="tool 'wave': invalid output schema"):
        OutputValidator({"type": 5}, name="wave")


def test_prompt_validator_names_the_prompt() -> None:
    validator = ArgumentValidator({"type": "object", "required": ["topic"]}, name="explain", kind="prompt")
    with pytest.raises(
        InvalidArguments, match=r'^Invalid arguments for prompt \'explain\': arguments: "topic"'
    ):
        validator.validate({})


def test_validation_of_a_typical_call_is_fast() -> None:
    def typical(a: float, b: float, label: str = "", repeat: int = 1, tags: list[str] | None = None) -> None:
        pass

    validator = validator_for(typical)
    arguments = {"a": 1.5, "b": 2, "label": "run", "repeat": 3, "tags": ["x", "y"]}
    rounds = 2_000
    start = time.perf_counter()
    for _ in range(rounds):
        validator.validate(arguments)
    per_call = (time.perf_counter() - start) / rounds
    # Generous bound for slow CI machines; measured about 35 µs here.
    assert per_call < 500e-6
