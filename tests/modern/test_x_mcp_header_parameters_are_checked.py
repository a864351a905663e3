"""Tool parameters mirrored as ``Mcp-Param-*`` headers: marks checked when the tool is registered, and
each 2026-07-28 ``tools/call`` held to them (missing, different, malformed or Base64-wrapped)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import Wire
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


def build() -> MCPServer:
    server = MCPServer("headers")

    @server.tool(x_mcp_headers={"region": "Region", "shards": "Shards", "dry_run": "Dry-Run"})
    def deploy(region: str, shards: int = 1, dry_run: bool = False, note: str = "") -> str:
        """Deploy somewhere."""
        return f"{region}/{shards}/{dry_run}/{note}"

    @server.tool(input_schema={"type": "object", "properties": {
        "target": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}}}})
    def nested(target: dict[str, Any] | None = None) -> str:
        """A mark below an object property, written in the schema itself."""
        return str((target or {}).get("zone"))

    return server


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    with serve(build()) as url:
        yield Wire(url + "mcp")


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


def deploy(wire: Wire, arguments: dict[str, Any], headers: dict[str, Any]) -> Any:
    return wire.call("tools/call", {"name": "deploy", "arguments": arguments}, headers=headers)


def test_the_marks_are_listed_in_the_input_schema(wire: Wire) -> None:
    tools = {t["name"]: t for t in wire.call("tools/list").result["tools"]}
    props = tools["deploy"]["inputSchema"]["properties"]
    assert (props["region"]["x-mcp-header"], props["shards"]["x-mcp-header"]) == ("Region", "Shards")
    assert "x-mcp-header" not in props["note"]


@pytest.mark.parametrize(("arguments", "headers"), [
    ({"region": "us-west1"}, {"Mcp-Param-Region": "us-west1"}),
    ({"region": "us-west1"}, {"mcp-param-region": "  us-west1 "}),
    ({"region": "Grüße, 世界"}, {"Mcp-Param-Region": b64("Grüße, 世界")}),
    ({"region": "=?base64?x"}, {"Mcp-Param-Region": "=?base64?x"}),
    ({"region": "eu", "shards": 42, "dry_run": True},
     {"Mcp-Param-Region": "eu", "Mcp-Param-Shards": "42.0", "Mcp-Param-Dry-Run": "true"}),
])
def test_matching_headers_are_accepted(wire: Wire, arguments: dict[str, Any],
                                       headers: dict[str, Any]) -> None:
    reply = deploy(wire, arguments, headers)
    assert reply.status == 200, reply.response
    assert not reply.result.get("isError")


@pytest.mark.parametrize(("arguments", "headers"), [
    ({"region": "us-west1"}, {}),
    ({"region": "us-west1"}, {"Mcp-Param-Region": "us-east1"}),
    ({"region": "us-west1"}, {"Mcp-Param-Region": "US-WEST1"}),
    ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8?="}),
    ({"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}),
    ({"region": "eu", "shards": 3}, {"Mcp-Param-Region": "eu", "Mcp-Param-Shards": "4"}),
    ({"region": "eu", "dry_run": False}, {"Mcp-Param-Region": "eu", "Mcp-Param-Dry-Run": "False"}),
    ({"region": "eu"}, {"Mcp-Param-Region": "eu", "Mcp-Param-Shards": "1"}),
])
def test_missing_or_different_headers_are_a_mismatch(wire: Wire, arguments: dict[str, Any],
                                                     headers: dict[str, Any]) -> None:
    reply = deploy(wire, arguments, headers)
    assert (reply.status, reply.error["code"]) == (400, -32020)


def test_a_raw_value_outside_ascii_is_told_the_base64_form(wire: Wire) -> None:
    reply = deploy(wire, {"region": "Zürich"}, {"Mcp-Param-Region": "Zürich"})  # sent as Latin-1 bytes
    assert (reply.status, reply.error["code"]) == (400, -32020)
    assert reply.error["message"] == ("Header mismatch: Mcp-Param-Region holds characters a header value may not "
                                      "contain (send text outside visible ASCII as =?base64?<Base64 of its UTF-8>?=)")
    assert deploy(wire, {"region": "Zürich"}, {"Mcp-Param-Region": b64("Zürich")}).status == 200


def test_nested_marks_follow_the_property_path(wire: Wire) -> None:
    call = {"name": "nested", "arguments": {"target": {"zone": "b"}}}
    assert wire.call("tools/call", call).error["code"] == -32020
    assert wire.call("tools/call", call, headers={"Mcp-Param-Zone": "b"}).result["content"][0]["text"] == "b"


def test_the_handshake_era_does_not_check_them(wire: Wire) -> None:
    import asyncio

    from support import mcp_client

    async def run() -> str:
        async with mcp_client(f"http://{wire.host}:{wire.port}/mcp") as session:
            result = await session.call_tool("deploy", {"region": "x"})
            return result.content[0].text

    assert asyncio.run(run()) == "x/1/False/"


def schema(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


@pytest.mark.parametrize(("options", "match"), [
    ({"x_mcp_headers": {"ratio": "Ratio"}}, "string, integer or boolean"),
    ({"x_mcp_headers": {"name": "Bad Name"}}, "header token"),
    ({"x_mcp_headers": {"name": ""}}, "header token"),
    ({"x_mcp_headers": {"name": "Dup", "other": "dup"}}, "case-insensitive"),
    ({"x_mcp_headers": {"missing": "M"}}, "not a parameter"),
    ({"input_schema": schema(items={"type": "array", "items": {"type": "string", "x-mcp-header": "I"}})},
     "not reachable"),
    ({"input_schema": schema(choice={"anyOf": [{"type": "string", "x-mcp-header": "C"}]})}, "not reachable"),
])
def test_bad_marks_are_refused_at_registration(options: dict[str, Any], match: str) -> None:
    server = MCPServer("bad-marks")

    def tool(name: str = "", other: str = "", ratio: float = 0.5, items: list[str] | None = None,
             choice: str | None = None) -> str:
        """A tool."""
        return name

    with pytest.raises(RegistrationError, match=match):
        server.add_tool(tool, **options)
