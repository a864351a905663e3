"""The violations of simple schemas found without jsonschema are jsonschema's own: the same errors (path,
message, value, keyword value) in the same order, for thousands of generated schemas and values; and a
call's "invalid arguments" lines are the same texts whichever finds them (trial10 F3b: the first bad
call no longer imports jsonschema)."""

from __future__ import annotations

import random
from typing import Any

import jsonschema
import pytest

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema.simple_errors import covers, violations
from nanohubmcp.schema.validate import ArgumentValidator, _violations

KEYS = ["a", "b", "c", "x y", "0"]
SCALARS: list[Any] = [None, True, False, 0, 1, -3, 1.0, 2.5, 10**20, "", "a", "abc", "1", "x y"]
TYPES = ["object", "array", "string", "integer", "number", "boolean", "null"]


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth >= 3 or kind < 0.55:
        return rng.choice(SCALARS)
    if kind < 0.75:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(KEYS): value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def schema(rng: random.Random, depth: int = 0) -> Any:
    if depth and rng.random() < 0.08:
        return rng.choice([True, False])
    out: dict[str, Any] = {}
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(
            [
                "type",
                "type",
                "properties",
                "required",
                "additionalProperties",
                "items",
                "anyOf",
                "enum",
                "const",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "description",
                "default",
                "format",
            ]
        )
        if key == "type":
            out[key] = rng.choice(TYPES) if rng.random() < 0.6 else rng.sample(TYPES, rng.randint(1, 3))
        elif key == "properties" and depth < 3:
            out[key] = {k: schema(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(0, 3))}
        elif key == "required":
            out[key] = rng.sample(KEYS, rng.randint(0, 3))
        elif key == "additionalProperties":
            out[key] = rng.choice([True, False]) if rng.random() < 0.6 or depth >= 3 else schema(rng, depth + 1)
        elif key == "items" and depth < 3:
            out[key] = schema(rng, depth + 1)
        elif key == "anyOf" and depth < 3:
            out[key] = [schema(rng, depth + 1) for _ in range(rng.randint(1, 3))]
        elif key == "enum":
            out[key] = rng.sample(SCALARS, rng.randint(1, 4))
        elif key == "const":
            out[key] = rng.choice(SCALARS)
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            out[key] = rng.choice([0, 1, 2.5, -3])
        elif key in ("minLength", "maxLength", "minItems", "maxItems"):
            out[key] = rng.choice([0, 1, 2, 3])
        elif key == "format":
            out[key] = "password"
        elif key in ("description", "default"):
            out[key] = "a note"
    return out


def as_tuples(errors: Any) -> list[tuple[Any, ...]]:
    return [(tuple(e[0]), e[1], repr(e[2]), repr(e[3])) for e in errors]


def test_generated_schemas_and_values_get_jsonschemas_own_errors_in_its_order() -> None:
    rng = random.Random(20261203)
    compared = failing = 0
    for _ in range(3000):
        s = schema(rng)
        assert covers(s), s
        reference = jsonschema.Draft202012Validator(s, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        for _ in range(6):
            v = value(rng)
            theirs = as_tuples(
                (e.absolute_path, e.message, e.instance, e.validator_value) for e in reference.iter_errors(v)
            )
            ours = as_tuples(violations(s, v))
            assert ours == theirs, (s, v)
            compared += 1
            failing += bool(theirs)
    assert failing > compared // 4  # the values break the schemas often enough to compare messages


def test_schemas_beyond_the_simple_keywords_are_left_to_jsonschema() -> None:
    for s in [
        {"type": "string", "pattern": "^a"},
        {"type": "string", "format": "email"},
        {"$ref": "#/$defs/x"},
        {"type": "array", "prefixItems": [{"type": "integer"}]},
        {"oneOf": [{"type": "number"}]},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
        {"enum": [[1]]},
        {"type": "object", "properties": {"a": {"not": {"type": "null"}}}},
        {"type": "decimal"},
        {"minimum": True},
        {"uniqueItems": True},
    ]:
        assert not covers(s), s


@pytest.mark.parametrize(
    "arguments",
    [
        {"a": "x"},
        {"a": 1, "b": "2", "extra": [1]},
        {"b": None, "n": None},
        {"a": None},
        {"a": True, "n": 2.5, "tags": ["a", 3]},
        {"a": 1, "mode": "slow", "n": -1},
        [1, 2],
        {"a": 1, **{f"k{i}": i for i in range(30)}},
        {"a": 1, "tags": list(range(1500))},
    ],
)
def test_a_calls_lines_are_the_same_whichever_finds_them(arguments: Any) -> None:
    from typing import Literal

    from nanohubmcp import MCPServer

    server = MCPServer("messages", provenance=False)

    @server.tool()
    def f(
        a: float, b: float = 1.0, n: int = 0, mode: Literal["fast", "exact"] = "fast", tags: list[str] | None = None
    ) -> float:
        """Sums."""
        return a

    validator = server.core.registry.tools.get("f").validator
    assert isinstance(validator, ArgumentValidator)
    with pytest.raises(InvalidArguments) as raised:
        validator.validate(arguments)
    s = validator.schema
    if isinstance(arguments, dict) and len(arguments) > 15:
        return  # told before either looks (too many names: validate._many_unexpected)
    if isinstance(arguments, dict):  # null for an optional argument: dropped first (the default applies)
        arguments = {k: v for k, v in arguments.items() if v is not None or k in s["required"]}
    reference = jsonschema.Draft202012Validator(s, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    expected = [f"Invalid arguments for tool 'f': {line}" for line in _violations(reference, arguments, "arguments")]
    assert raised.value.errors == expected
