"""A constraint written on a parameter's type (pydantic's ``Field(gt=0)``, annotated_types' ``Len``) reaches the
tool's input schema and is enforced by the call's validation; one no JSON Schema keyword can say is refused at
registration, naming it (review r37 F12).

Before: ``Annotated[float, Field(gt=0, description="temperature (K)")]`` gave the schema its description and
dropped the bound: ``{"type": "number", "description": ...}``, and ``-5`` ran the tool. A ``Field(gt=date(...))``,
a ``Predicate`` or ``Field(default=3)`` was accepted and did nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, Secret
from nanohubmcp.errors import RegistrationError

pydantic = pytest.importorskip("pydantic")
at = pytest.importorskip("annotated_types")
Field = pydantic.Field

SECRET = "short-S3CRET"


def build(ran: list[str]) -> MCPServer:
    server = MCPServer("bounded", provenance=False)

    @server.tool()
    def warm(t: Annotated[float, Field(gt=0, description="temperature (K)")]) -> float:
        """Warm a sample."""
        ran.append("warm")
        return t

    @server.tool()
    def label(
        name: Annotated[str, Field(min_length=2, pattern=r"^[a-z]+$")],
        tags: Annotated[list[int], at.Len(1, 3)],
        step: Annotated[int | None, Field(ge=1, le=10, multiple_of=2)] = None,
    ) -> str:
        """Label a sample."""
        ran.append("label")
        return name

    @server.tool()
    def login(key: Annotated[Secret, Field(min_length=20)]) -> str:
        """Log in with an access key."""
        ran.append("login")
        return "ok"

    return server


@pytest.mark.anyio
async def test_the_bounds_are_published_and_a_call_breaking_them_is_refused_before_the_tool_runs() -> None:
    ran: list[str] = []
    with serve(build(ran)) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            cold = await client.call_tool("warm", {"t": -5})
            zero = await client.call_tool("warm", {"t": 0})
            warm = await client.call_tool("warm", {"t": 300})
            bad = await client.call_tool("label", {"name": "A", "tags": [], "step": 3})
            good = await client.call_tool("label", {"name": "si", "tags": [1, 2], "step": 4})
            short = await client.call_tool("login", {"key": SECRET})
    assert tools["warm"]["properties"]["t"] == {
        "type": "number", "description": "temperature (K)", "exclusiveMinimum": 0}
    assert tools["label"]["properties"]["name"] == {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}
    assert tools["label"]["properties"]["tags"] == {
        "type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
    step = tools["label"]["properties"]["step"]
    assert (step["minimum"], step["maximum"], step["multipleOf"]) == (1, 10, 2)
    assert tools["login"]["properties"]["key"]["minLength"] == 20
    assert cold.is_error
    assert "less than or equal to the exclusive minimum of 0" in cold.content[0].text, cold.content
    assert zero.is_error
    assert not warm.is_error
    assert bad.is_error
    said = bad.content[0].text
    for what in ("arguments.name", "too short", "does not match", "arguments.tags", "arguments.step"):
        assert what in said, said
    assert not good.is_error, good.content
    assert short.is_error
    assert "too short" in short.content[0].text
    assert SECRET not in short.content[0].text, short.content  # a Secret's value is never quoted back
    assert ran == ["warm", "label"]


def _register(annotation: Any) -> None:
    server = MCPServer("refused", provenance=False)

    def tool(x):  # type: ignore[no-untyped-def]
        """A tool."""
        return x

    tool.__annotations__ = {"x": annotation}
    server.tool()(tool)


@pytest.mark.parametrize(("annotation", "said"), [
    (Annotated[dt.date, Field(gt=dt.date(2020, 1, 1))],
     "bounds a number, but the JSON value it would bound is of type string"),
    (Annotated[int, at.Predicate(lambda v: v % 2 == 0)], "cannot be said in the JSON Schema"),
    (Annotated[int, Field(default=3)], "give the default in the signature"),
    (Annotated[int, Field(alias="n")], "Field(alias='n') does nothing"),
    (Annotated[int, Field(strict=True)], "Strict(strict=True) cannot be said"),
    (Annotated[float, Field(max_digits=3)], "max_digits=3"),
    (Annotated[bytes, Field(max_length=3)], "base64"),
    (Annotated[int, Field(min_length=2)], "bounds the length of a text, list or dict"),
    (Annotated[float, Field(gt=float("-inf"))], "a finite int or float"),
    (Annotated[Any, at.Gt(0)], "of any type"),
], ids=["date-bound", "predicate", "default", "alias", "strict", "max-digits", "bytes-length", "length-of-int",
        "infinite-bound", "any"])
def test_a_constraint_no_keyword_can_say_is_refused_at_registration_naming_it(annotation: Any, said: str) -> None:
    with pytest.raises(RegistrationError, match=r"^tool 'tool': parameter 'x': ") as refused:
        _register(annotation)
    assert said in str(refused.value), refused.value


def test_other_libraries_objects_and_no_op_flags_are_left_alone() -> None:
    class Marker:
        description = "a marker's text"

    _register(Annotated[int, Marker(), Field(strict=False, allow_inf_nan=False), re.compile("unused")])


def test_a_refusal_never_quotes_a_secret_arguments_value() -> None:
    """A refusal of a ``Secret`` (a number where text is due, a length from a dict merged in) writes its value
    ``***``: the refusal is answered, logged and recorded. Before: ``12345678 is not of type 'string'``."""
    server = MCPServer("secret-refusals", provenance=False)

    @server.tool()
    def login(key: Annotated[Secret, {"minLength": 20}], pin: Secret | None = None) -> str:
        """Log in."""
        return "ok"

    server.start(port=0)
    try:
        wrong_type = server.call("login", {"key": "k" * 20, "pin": 12345678})
        too_short = server.call("login", {"key": "tiny-S3CRET-value"})
    finally:
        server.stop()
    for refused, value in ((wrong_type, "12345678"), (too_short, "tiny-S3CRET-value")):
        text = refused["content"][0]["text"]
        assert refused["isError"], refused
        assert value not in text, text
        assert "***" in text, text
