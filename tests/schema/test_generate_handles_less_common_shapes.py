"""Less common annotation shapes, resolution fallbacks and validator corners."""

# Optional/Union spellings are part of what is being described.
# ruff: noqa: UP007, UP045

from __future__ import annotations

import dataclasses
import enum
import sys
import typing
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import pytest
from jsonschema import Draft202012Validator

from nanohubmcp.errors import InvalidArguments, RegistrationError
from nanohubmcp.schema import ArgumentValidator, OutputValidator, describe_function
from nanohubmcp.schema.hints import evaluate


class Context:
    pass


class Color(enum.Enum):
    RED = "red"


class Celsius(float):
    pass


class Flags(TypedDict, total=False):
    name: typing.Required[str]
    verbose: bool


def describe(fn):
    return describe_function(fn, kind="tool", name=fn.__name__, context_types=(Context,))


def test_subclasses_of_builtin_scalars_map_like_their_base() -> None:
    def heat(t: Celsius) -> None:
        pass

    assert describe(heat).input_schema["properties"]["t"] == {"type": "number"}


def test_structural_unions_without_coercion() -> None:
    def either(value: Union[list[str], dict[str, str]]) -> None:
        pass

    signature = describe(either)
    assert signature.input_schema["properties"]["value"] == {
        "anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "object", "additionalProperties": {"type": "string"}},
        ]
    }
    assert signature.coerce({"value": ["a"]}) == {"value": ["a"]}


def test_union_member_validators_are_compiled_once_and_reused() -> None:
    def pick(value: Union[Color, int]) -> None:
        pass

    signature = describe(pick)
    for _ in range(3):
        assert signature.coerce({"value": "red"}) == {"value": Color.RED}
        assert signature.coerce({"value": 2.0}) == {"value": 2}


def test_tuples_of_any_and_of_plain_strings() -> None:
    def tuples(loose: tuple[Any, ...], pair: tuple[str, str]) -> None:
        pass

    signature = describe(tuples)
    assert signature.input_schema["properties"]["loose"] == {"type": "array"}
    assert signature.coerce({"loose": [1, "a"], "pair": ["a", "b"]}) == {
        "loose": (1, "a"),
        "pair": ("a", "b"),
    }


def test_dict_keys_restricted_by_literal_or_enum() -> None:
    def keyed(by_literal: dict[Literal["a", "b"], int], by_enum: dict[Color, str]) -> None:
        pass

    signature = describe(keyed)
    properties = signature.input_schema["properties"]
    assert properties["by_literal"]["propertyNames"] == {"type": "string", "enum": ["a", "b"]}
    assert properties["by_enum"]["propertyNames"] == {"type": "string", "enum": ["red"]}
    assert signature.coerce({"by_literal": {"a": 1.0}, "by_enum": {"red": "x"}}) == {
        "by_literal": {"a": 1},
        "by_enum": {Color.RED: "x"},
    }


def test_recursive_types_with_the_same_name_get_distinct_definitions() -> None:
    def first():
        @dataclasses.dataclass
        class Node:
            next: Optional[Node] = None

        return Node

    def second():
        @dataclasses.dataclass
        class Node:
            children: list[Node]

        return Node

    a, b = first(), second()
    # Local classes cannot be found from string annotations: give the real types.
    a.__annotations__ = {"next": Optional[a]}
    b.__annotations__ = {"children": list[b]}

    def link(x, y):
        pass

    link.__annotations__ = {"x": a, "y": b}
    schema = describe(link).input_schema
    assert set(schema["$defs"]) == {"Node", "Node2"}
    Draft202012Validator.check_schema(schema)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.Required is new in 3.11")
def test_required_marker_inside_a_non_total_typeddict() -> None:
    def flags(options: Flags) -> None:
        pass

    assert describe(flags).input_schema["properties"]["options"]["required"] == ["name"]


def test_annotated_context_is_the_context() -> None:
    def tool(x: int, ctx: Annotated[Context, "injected"]) -> None:
        pass

    assert describe(tool).context_param == "ctx"


def test_classes_without_an_init_of_their_own_take_no_arguments() -> None:
    class Empty:
        pass

    signature = describe_function(Empty, kind="tool", name="empty")
    assert signature.input_schema == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


def test_record_with_unresolvable_annotations_keeps_what_it_can() -> None:
    class LocalOnly:
        pass

    @dataclasses.dataclass
    class Record:
        known: int
        unknown: LocalOnly

    def store(record: Record) -> None:
        pass

    store.__annotations__ = {"record": Record}
    properties = describe(store).input_schema["properties"]["record"]["properties"]
    assert properties == {"known": {"type": "integer"}, "unknown": {}}


def test_evaluate_keeps_the_outer_type_when_inner_names_are_missing() -> None:
    assert evaluate("List['Missing']", {}) == typing.List[typing.ForwardRef("Missing")]  # noqa: UP006
    assert evaluate("no such thing", {}) is Any


def test_validators_expose_their_schema() -> None:
    schema = {"type": "object"}
    assert ArgumentValidator(schema, name="t").schema is schema
    assert OutputValidator(schema, name="t").schema is schema


def test_nested_id_scopes_are_checked_when_first_used() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$id": "https://example.org/a.json", "$ref": "b.json"}},
    }
    with pytest.raises(RegistrationError, match="tool 'scoped': invalid input schema"):
        ArgumentValidator(schema, name="scoped")
    valid_scope = {
        "type": "object",
        "properties": {
            "a": {
                "$id": "https://example.org/a.json",
                "$defs": {"n": {"type": "integer"}},
                "$ref": "#/$defs/n",
            }
        },
    }
    assert ArgumentValidator(valid_scope, name="scoped").validate({"a": 1}) == {"a": 1}


def test_coerce_alone_reports_values_validation_would_have_refused() -> None:
    import datetime
    import uuid

    def stamp(at: datetime.time, ident: uuid.UUID, pick: Union[Color, int]) -> None:
        pass

    stamp.__annotations__ = {"at": datetime.time, "ident": uuid.UUID, "pick": Union[Color, int]}
    signature = describe(stamp)
    # The "time" format needs an optional checker package, so this one reaches coercion.
    with pytest.raises(InvalidArguments, match=r'arguments\.at: "25:99" is not a valid time'):
        signature.coerce(
            ArgumentValidator(signature.input_schema, name="stamp").validate(
                {"at": "25:99", "ident": str(uuid.UUID(int=1)), "pick": 1}
            )
        )
    with pytest.raises(InvalidArguments, match=r'arguments\.ident: "nope" is not a valid UUID'):
        signature.coerce({"ident": "nope"})
    assert signature.coerce({"pick": "blue"}) == {"pick": "blue"}


def test_properties_that_are_not_an_object_do_not_break_null_dropping() -> None:
    assert ArgumentValidator({"type": "object"}, name="t").validate({"a": None}) == {"a": None}
