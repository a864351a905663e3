"""describe_function publishes the documented JSON Schema for every annotation shape."""

# The typing spellings (Optional, Union, List, ...) are what these tests are about.
# ruff: noqa: UP006, UP007, UP045

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import enum
import pathlib
import sys
import typing
import uuid
from typing import Annotated, Any, Literal, NamedTuple, NewType, Optional, TypedDict, Union

import pytest
from jsonschema import Draft202012Validator

from nanohubmcp.schema import describe_function


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    ONE = 1
    TWO = "two"


class Shape(enum.Enum):
    SQUARE = (1, 1)
    LINE = (1, 0)


@dataclasses.dataclass
class Point:
    """A point in the plane.

    Attributes:
        x: horizontal position, in nm
    """

    x: float
    y: float = 0.0
    label: Optional[str] = None
    tags: list[str] = dataclasses.field(default_factory=list)
    internal: int = dataclasses.field(default=0, init=False)


@dataclasses.dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Options(TypedDict, total=False):
    depth: int
    mode: Literal["fast", "exact"]


class Job(TypedDict):
    name: str
    retries: typing.NotRequired[int]


class Pair(NamedTuple):
    left: int
    right: int = 0


UserId = NewType("UserId", int)


def schema_of(annotation: Any) -> dict[str, Any]:
    """The property schema published for a lone parameter annotated with ``annotation``."""

    def probe(value):  # the annotation is attached below, after the fact
        return value

    probe.__annotations__ = {"value": annotation}
    schema = describe_function(probe, kind="tool", name="probe").input_schema
    Draft202012Validator.check_schema(schema)
    return schema["properties"]["value"]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (object, {}),
        (Optional[int], {"type": ["integer", "null"]}),
        (int | None, {"type": ["integer", "null"]}),
        (Union[int, str], {"type": ["integer", "string"]}),
        (int | str | None, {"type": ["integer", "string", "null"]}),
        (Union[int, Any], {}),
        (list, {"type": "array"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (typing.List[str], {"type": "array", "items": {"type": "string"}}),
        (typing.Sequence[float], {"type": "array", "items": {"type": "number"}}),
        (collections.abc.Sequence[int], {"type": "array", "items": {"type": "integer"}}),
        (collections.abc.Iterable[int], {"type": "array", "items": {"type": "integer"}}),
        (set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (frozenset[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (tuple, {"type": "array"}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (tuple[()], {"type": "array", "maxItems": 0}),
        (dict, {"type": "object"}),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (dict[str, Any], {"type": "object"}),
        (typing.Mapping[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (
            dict[int, str],
            {
                "type": "object",
                "propertyNames": {"pattern": "^-?[0-9]+$"},
                "additionalProperties": {"type": "string"},
            },
        ),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal["a", 1], {"enum": ["a", 1]}),
        (Literal[True], {"type": "boolean", "enum": [True]}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Mixed, {"enum": [1, "two"]}),
        (Shape, {"type": "string", "enum": ["SQUARE", "LINE"]}),
        (Optional[Color], {"type": ["string", "null"], "enum": ["red", "green", None]}),
        (bytes, {"type": "string", "contentEncoding": "base64"}),
        (bytearray, {"type": "string", "contentEncoding": "base64"}),
        (datetime.datetime, {"type": "string", "format": "date-time"}),
        (datetime.date, {"type": "string", "format": "date"}),
        (datetime.time, {"type": "string"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (pathlib.Path, {"type": "string"}),
        (Annotated[float, "mass in kg"], {"type": "number", "description": "mass in kg"}),
        (
            Annotated[int, "count", {"minimum": 0}],
            {"type": "integer", "description": "count", "minimum": 0},
        ),
        (UserId, {"type": "integer"}),
        (typing.TypeVar("Bounded", bound=str), {"type": "string"}),
        (typing.TypeVar("Free"), {}),
        (typing.Callable[[int], int], {}),
        (complex, {}),
        (typing.NoReturn, {}),
        (42, {}),
        (dict[float, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Literal[1.5, 2.5], {"type": "number", "enum": [1.5, 2.5]}),
        (Literal["a", None], {"enum": ["a", None]}),
        (Annotated[int, {"minimum": 0}], {"type": "integer", "minimum": 0}),
        ("NoSuchName", {}),
    ],
    ids=repr,
)
def test_annotation_maps_to_documented_schema(annotation: Any, expected: dict[str, Any]) -> None:
    assert schema_of(annotation) == expected


def test_optional_of_a_composite_type_uses_any_of() -> None:
    assert schema_of(Optional[Union[list[int], Color]]) == {
        "anyOf": [
            {"type": "array", "items": {"type": "integer"}},
            {"type": "string", "enum": ["red", "green"]},
            {"type": "null"},
        ]
    }
    assert schema_of(Optional[Literal["a", 1]]) == {"enum": ["a", 1, None]}


def test_union_of_structured_types_uses_any_of() -> None:
    schema = schema_of(Union[Pair, list[int]])
    assert [s.get("type") for s in schema["anyOf"]] == ["object", "array"]


def test_dataclass_becomes_closed_object_with_field_defaults_and_descriptions() -> None:
    assert schema_of(Point) == {
        "type": "object",
        "description": "A point in the plane.",
        "properties": {
            "x": {"type": "number", "description": "horizontal position, in nm"},
            "y": {"type": "number", "default": 0.0},
            "label": {"type": ["string", "null"], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["x"],
        "additionalProperties": False,
    }


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.NotRequired is new in 3.11")
def test_typeddict_follows_totality_and_required_markers() -> None:
    options = schema_of(Options)
    assert options["type"] == "object"
    assert options["required"] == []
    assert options["properties"]["mode"] == {"type": "string", "enum": ["fast", "exact"]}
    assert "additionalProperties" not in options
    job = schema_of(Job)
    assert job["required"] == ["name"]
    assert job["properties"]["retries"] == {"type": "integer"}


def test_named_tuple_becomes_an_object_of_its_fields() -> None:
    assert schema_of(Pair) == {
        "type": "object",
        "properties": {"left": {"type": "integer"}, "right": {"type": "integer", "default": 0}},
        "required": ["left"],
        "additionalProperties": False,
    }


def test_recursive_dataclass_is_defined_once_under_defs() -> None:
    def grow(tree: Tree) -> int:
        return tree.value

    schema = describe_function(grow, kind="tool", name="grow").input_schema
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Tree"}
    assert schema["$defs"]["Tree"]["properties"]["children"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Tree"},
    }
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"tree": {"value": 1, "children": [{"value": 2}]}})
    assert not validator.is_valid({"tree": {"value": 1, "children": [{"value": "x"}]}})


def test_pydantic_model_schema_is_used_with_defs_hoisted() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Inner(pydantic.BaseModel):
        size: int

    class Outer(pydantic.BaseModel):
        inner: Inner
        note: str = "n"

    def use(model: Outer) -> str:
        return model.note

    use.__annotations__ = {"model": Outer}
    schema = describe_function(use, kind="tool", name="use").input_schema
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["model"]["properties"]["inner"] == {"$ref": "#/$defs/Inner"}
    assert "Inner" in schema["$defs"]
    assert Draft202012Validator(schema).is_valid({"model": {"inner": {"size": 1}}})


def test_abstract_iterables_only_become_arrays_when_they_are_collections() -> None:
    assert schema_of(collections.abc.Iterator[int]) == {}
    assert schema_of(collections.abc.Callable) == {}
