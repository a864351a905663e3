"""A hand-written schema holding ``inf`` or ``nan`` is refused when the tool is registered, saying where:
JSON has no form for them, and the published schema read ``"maximum": null`` (a schema no client could use)
while calls were checked against the number."""

from __future__ import annotations

import math

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import in_memory


def one(x: float) -> float:
    """Give x back."""
    return x


@pytest.mark.parametrize(("schema", "where"), [
    ({"type": "object", "properties": {"x": {"type": "number", "maximum": math.inf}}},
     "inf at schema.properties.x.maximum"),
    ({"type": "object", "properties": {"x": {"enum": [1.0, math.nan]}}}, "nan at schema.properties.x.enum[1]"),
    ({"type": "object", "properties": {"x": {"type": "number", "default": -math.inf}}},
     "-inf at schema.properties.x.default"),
])
def test_the_refusal_names_where(schema: dict, where: str) -> None:
    server = MCPServer("inf-schema")
    with pytest.raises(RegistrationError) as caught:
        server.tool(input_schema=schema)(one)
    assert str(caught.value) == (f"tool 'one': invalid input schema: {where} has no JSON form;"
                                 " write a finite number or leave the keyword out")
    with in_memory(server) as client:
        assert client.list_tools() == []


def test_an_output_schema_is_refused_alike() -> None:
    server = MCPServer("inf-schema")
    schema = {"type": "object", "properties": {"result": {"type": "number", "exclusiveMinimum": -math.inf}}}
    with pytest.raises(RegistrationError, match=r"output schema: -inf at schema\.properties\.result"):
        server.tool(output_schema=schema)(one)


def test_a_finite_hand_written_schema_still_serves() -> None:
    server = MCPServer("inf-schema")
    server.tool(input_schema={"type": "object", "properties": {"x": {"type": "number", "maximum": 1e308}}})(one)
    with in_memory(server) as client:
        assert client.list_tools()[0]["inputSchema"]["properties"]["x"]["maximum"] == 1e308
        assert client.call_tool("one", {"x": 2})["content"][0]["text"] == "2.0"
