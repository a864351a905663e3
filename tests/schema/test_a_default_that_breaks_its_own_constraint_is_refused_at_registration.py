"""A parameter default that breaks its own constraint (``x: Annotated[int, Field(gt=0)] = -1``) is refused when the
tool is registered, naming the parameter, the default and the constraint.

Before: the tool was listed with ``{"exclusiveMinimum": 0, "default": -1}``, a call leaving ``x`` out ran the tool
with -1, and a client sending -1 itself was refused: the author meant one or the other. So for annotated_types'
``Gt``, a hand-written ``{"minimum": ...}``, ``max_length``, ``pattern``, ``multiple_of``, ``Literal`` (whose bad
default was not even published) and a constraint on a list's items.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

import anyio
import pytest
from annotated_types import Gt, MinLen
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

pydantic = pytest.importorskip("pydantic")
Field = pydantic.Field

TAIL = (", so a call leaving it out would run the function with a value no client may send; change the default or the "
        "constraint")


def _register(annotation: Any, default: object) -> MCPServer:
    server = MCPServer("defaults", provenance=False)

    def run(x=default):  # type: ignore[no-untyped-def]
        """Echo x."""
        return x

    run.__annotations__ = {"x": annotation, "return": Any}
    server.tool()(run)
    return server


BROKEN = [
    (Annotated[int, Field(gt=0)], -1,
     "its default -1 breaks its constraint gt=0 (the schema's exclusiveMinimum 0): a value must be greater than 0"),
    (Annotated[int, Gt(0)], 0,
     "its default 0 breaks its constraint gt=0 (the schema's exclusiveMinimum 0): a value must be greater than 0"),
    (Annotated[float, {"minimum": 1.5}], 1,
     "its default 1 breaks its constraint ge=1.5 (the schema's minimum 1.5): a value must be at least 1.5"),
    (Annotated[str, Field(max_length=2)], "abc",
     "its default 'abc' breaks its constraint max_length=2 (the schema's maxLength 2): a value must be at most 2 "
     "characters long"),
    (Annotated[str, Field(pattern=r"^[a-z]+$")], "run\n",
     "its default 'run\\n' breaks its constraint pattern='^[a-z]+$': a value must be text the pattern matches"),
    (Annotated[float, Field(multiple_of=0.5)], 0.3,
     "its default 0.3 breaks its constraint multiple_of=0.5 (the schema's multipleOf 0.5): a value must be a "
     "multiple of 0.5"),
    (Literal["euler", "exact"], "rk4",
     "its default 'rk4' breaks its constraint enum (a Literal's or an Enum's values): a value must be one of "
     "'euler', 'exact'"),
    (Annotated[int, Gt(0)] | None, -3,
     "its default -3 breaks its constraint gt=0 (the schema's exclusiveMinimum 0): a value must be greater than 0"),
    (list[Annotated[int, Gt(0)]], [1, -1],
     "its default [1, -1] at default[1] (-1) breaks its constraint gt=0 (the schema's exclusiveMinimum 0)"),
    (Annotated[list[int], MinLen(2)], (1,),
     "its default (1,) breaks its constraint min_length=2 (the schema's minItems 2): a value must be at least 2 "
     "items long"),
    (tuple[str, Annotated[int, Gt(0)]], ("a", 0), "its default ('a', 0) at default[1] (0) breaks its constraint gt=0"),
    (dict[str, Annotated[int, Gt(0)]], {"a": -1}, "its default {'a': -1} at default.a (-1) breaks its constraint gt=0"),
    (Annotated[list[int], {"uniqueItems": True}], [1, 1],
     "its default [1, 1] breaks its constraint uniqueItems (a set's items): a value must be items all different"),
    (Annotated[int, {"const": 3}], 4, "its default 4 breaks its constraint const 3: a value must be exactly 3"),
]


@pytest.mark.parametrize(("annotation", "default", "said"), BROKEN, ids=[
    "field-gt", "Gt", "hand-written-minimum", "max_length", "pattern", "multiple_of", "Literal", "optional",
    "list-items", "MinLen", "tuple-member", "dict-values", "uniqueItems", "const"])
def test_a_default_that_breaks_its_constraint_is_refused_naming_it(annotation: Any, default: object,
                                                                    said: str) -> None:
    with pytest.raises(RegistrationError) as refused:
        _register(annotation, default)
    text = str(refused.value)
    assert text.startswith(f"tool 'run': parameter 'x': {said}"), text
    assert text.endswith(TAIL), text


class Method(enum.Enum):
    EULER = "euler"
    CUSTOM = object()  # not JSON: the enum is published by its members' names


@pytest.mark.anyio
async def test_defaults_that_keep_their_constraints_are_served_and_used() -> None:
    server = MCPServer("defaults", provenance=False)

    @server.tool()
    def run(
        x: Annotated[int, Field(gt=0)] = 1,
        y: Annotated[int, Gt(0)] | None = None,
        step: Annotated[float, Field(multiple_of=0.1)] = 0.3,
        method: Method = Method.CUSTOM,
        kind: Literal["a", "b"] | None = None,
        name: Annotated[str, Field(pattern=r"^[a-z]+$")] = "run",
    ) -> dict[str, Any]:
        """Echo the arguments."""
        return {"x": x, "y": y, "step": step, "method": method.name, "kind": kind, "name": name}

    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            left_out = await client.call_tool("run", {})
            sent = await client.call_tool("run", {"x": -1})
    assert not left_out.is_error, left_out.content
    assert left_out.structured_content == {
        "x": 1, "y": None, "step": 0.3, "method": "CUSTOM", "kind": None, "name": "run"}
    assert sent.is_error, sent.content
    assert "-1 is less than or equal to the exclusive minimum of 0" in sent.content[0].text, sent.content


@pytest.mark.timeout(30)
def test_a_long_default_is_checked_for_unique_items_in_one_pass() -> None:
    # Pairwise, a 20,000-item default took 112 s to register (review r39 R39-5); by a key per item, milliseconds.
    items = [*range(20_000), 0.5, "0", [0], {"a": [1.0]}, True, None]
    _register(Annotated[list[Any], {"uniqueItems": True}], items)  # all different: JSON's 1.0 is 1, true is not 1
    for repeated in (1.0, [0.0], {"a": [1]}):
        with pytest.raises(RegistrationError, match="uniqueItems"):
            _register(Annotated[list[Any], {"uniqueItems": True}], [*items, repeated])


def test_a_set_default_is_checked_though_it_is_not_published() -> None:
    # Review r39 R39-6: a set is no JSON, so its default is left out of the schema; it was not checked either.
    with pytest.raises(RegistrationError, match=r"its default \{1, 2, 3\} breaks its constraint max_length=2"):
        _register(Annotated[set[int], Field(max_length=2)], {1, 2, 3})
    _register(Annotated[frozenset[int], Field(max_length=3)], frozenset({1, 2, 3}))  # keeps it: served
