"""Signature.coerce turns validated JSON into the Python values the function was written for."""

# Optional/Union spellings are part of what is being coerced.
# ruff: noqa: UP007, UP045

from __future__ import annotations

import dataclasses
import datetime
import enum
import pathlib
import uuid
from typing import Literal, NamedTuple, Optional, TypedDict, Union

import pytest

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema import ArgumentValidator, describe_function


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Shape(enum.Enum):
    SQUARE = (1, 1)
    LINE = (1, 0)


@dataclasses.dataclass
class Sample:
    name: str
    color: Color = Color.RED
    size: int = 1

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("size must not be negative")


@dataclasses.dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Settings(TypedDict, total=False):
    color: Color
    when: datetime.date


class Span(NamedTuple):
    start: int
    stop: int


def call(fn, arguments):
    """Validate and coerce as the server does; return the keyword arguments."""
    signature = describe_function(fn, kind="tool", name=fn.__name__)
    validator = ArgumentValidator(signature.input_schema, name=fn.__name__)
    return signature.coerce(validator.validate(arguments))


def test_nothing_to_coerce_is_the_identity() -> None:
    def plain(a: str, b: bool, c: list[str]) -> None:
        pass

    signature = describe_function(plain, kind="tool", name="plain")
    arguments = {"a": "x", "b": True, "c": ["y"]}
    assert signature.coerce(arguments) is arguments


def test_a_float_parameter_gets_a_float_for_a_json_integer() -> None:
    def add(a: float, b: float) -> float:
        return a + b

    signature = describe_function(add, kind="tool", name="add")
    kwargs = signature.coerce({"a": 2, "b": 3})
    assert kwargs == {"a": 2.0, "b": 3.0}
    assert all(type(v) is float for v in kwargs.values())
    assert str(add(**kwargs)) == "5.0"


def test_enum_literal_of_enum_and_named_enum() -> None:
    def paint(color: Color, shape: Shape, accent: Literal[Color.GREEN, "none"]) -> None:
        pass

    assert call(paint, {"color": "green", "shape": "LINE", "accent": "green"}) == {
        "color": Color.GREEN,
        "shape": Shape.LINE,
        "accent": Color.GREEN,
    }
    assert call(paint, {"color": "red", "shape": "SQUARE", "accent": "none"})["accent"] == "none"


def test_dataclasses_nested_and_recursive() -> None:
    def measure(sample: Sample, samples: list[Sample], tree: Tree) -> None:
        pass

    kwargs = call(
        measure,
        {
            "sample": {"name": "a", "color": "green"},
            "samples": [{"name": "b"}],
            "tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]},
        },
    )
    assert kwargs["sample"] == Sample("a", Color.GREEN)
    assert kwargs["samples"] == [Sample("b")]
    assert kwargs["tree"] == Tree(1, [Tree(2, [Tree(3)])])


def test_dataclass_constructor_refusal_becomes_invalid_arguments_with_a_path() -> None:
    def measure(samples: list[Sample]) -> None:
        pass

    with pytest.raises(InvalidArguments) as caught:
        call(measure, {"samples": [{"name": "a"}, {"name": "b", "size": -1}]})
    assert str(caught.value) == (
        "Invalid arguments for tool 'measure': arguments.samples[1]: size must not be negative"
    )


def test_typeddict_stays_a_dict_with_coerced_members() -> None:
    def configure(settings: Settings) -> None:
        pass

    kwargs = call(configure, {"settings": {"color": "red", "when": "2025-01-31"}})
    assert kwargs["settings"] == {"color": Color.RED, "when": datetime.date(2025, 1, 31)}
    assert type(kwargs["settings"]) is dict


def test_tuples_sets_named_tuples_and_int_keys() -> None:
    def shapes(
        pair: tuple[int, Color],
        many: tuple[float, ...],
        unique: set[int],
        frozen: frozenset[str],
        span: Span,
        table: dict[int, Color],
    ) -> None:
        pass

    kwargs = call(
        shapes,
        {
            "pair": [1, "red"],
            "many": [1.5, 2],
            "unique": [1, 2],
            "frozen": ["a"],
            "span": {"start": 1, "stop": 4},
            "table": {"7": "green"},
        },
    )
    assert kwargs == {
        "pair": (1, Color.RED),
        "many": (1.5, 2),
        "unique": {1, 2},
        "frozen": frozenset({"a"}),
        "span": Span(1, 4),
        "table": {7: Color.GREEN},
    }


def test_integral_floats_reach_int_parameters_as_int() -> None:
    def count(n: int, maybe: Optional[int] = None, either: Union[int, str] = 0) -> None:
        pass

    kwargs = call(count, {"n": 5.0, "maybe": 2.0, "either": 3.0})
    assert kwargs == {"n": 5, "maybe": 2, "either": 3}
    assert all(type(v) is int for v in kwargs.values())
    assert call(count, {"n": 1, "maybe": None, "either": "x"}) == {"n": 1, "maybe": None, "either": "x"}


def test_strings_with_formats_bytes_and_paths() -> None:
    def stamp(
        when: datetime.datetime,
        day: datetime.date,
        at: datetime.time,
        ident: uuid.UUID,
        data: bytes,
        where: pathlib.Path,
    ) -> None:
        pass

    kwargs = call(
        stamp,
        {
            "when": "2025-03-01T12:00:00Z",
            "day": "2025-03-01",
            "at": "12:30:00",
            "ident": "12345678-1234-5678-1234-567812345678",
            "data": "aGVsbG8=",
            "where": "/tmp/x.txt",
        },
    )
    assert kwargs["when"] == datetime.datetime(2025, 3, 1, 12, tzinfo=datetime.timezone.utc)
    assert kwargs["day"] == datetime.date(2025, 3, 1)
    assert kwargs["at"] == datetime.time(12, 30)
    assert kwargs["ident"] == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert kwargs["data"] == b"hello"
    assert kwargs["where"] == pathlib.Path("/tmp/x.txt")


def test_bad_base64_is_reported_as_invalid_arguments() -> None:
    def upload(data: bytes) -> None:
        pass

    with pytest.raises(InvalidArguments, match=r"arguments\.data: not valid base64"):
        call(upload, {"data": "@@not base64@@"})


def test_union_picks_the_first_member_that_accepts_the_value() -> None:
    def pick(value: Union[Color, Sample, int]) -> None:
        pass

    assert call(pick, {"value": "green"}) == {"value": Color.GREEN}
    assert call(pick, {"value": {"name": "s"}}) == {"value": Sample("s")}
    assert call(pick, {"value": 4.0}) == {"value": 4}


def test_var_keyword_values_are_coerced_by_their_annotation() -> None:
    def tag(name: str, **colors: Color) -> None:
        pass

    assert call(tag, {"name": "n", "a": "red", "b": "green"}) == {
        "name": "n",
        "a": Color.RED,
        "b": Color.GREEN,
    }


def test_pydantic_models_are_validated_into_instances() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Item(pydantic.BaseModel):
        name: str
        count: int = 1

    def order(item: Item) -> None:
        pass

    order.__annotations__ = {"item": Item}
    assert call(order, {"item": {"name": "x"}}) == {"item": Item(name="x", count=1)}
