"""A request's ``_meta.progressToken`` is MCP's ``ProgressToken``: a string or an integer of at most 256
characters. Another type (an object, an array, a bool, a float) is invalid params (-32602) naming the rule,
as a longer token is (trial42 T42-7: it was accepted silently). On the legacy HTTP+SSE transport such an
error, found as the POST's message is read, is answered on the stream with the request's id, the POST
accepted (202), as the handlers' -32602s are (trial42 T42-6: it was only the POST's 400 body, so the official
legacy client's post writer failed, the call waited its whole read timeout and the next one found the
connection closed).

A real server: the official ``mcp`` client's ``sse_client`` for the legacy transport, httpx on ``/mcp``.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
import mcp.types as t
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol.jsonrpc import MAX_ID_CHARS

pytestmark = pytest.mark.timeout(60)
ACCEPT = "application/json, text/event-stream"


def build() -> MCPServer:
    server = MCPServer("tokens")

    @server.tool()
    def add(a: int, b: int) -> int:
        """a plus b."""
        return a + b

    return server


def call(token: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": token}}}


@pytest.mark.parametrize(("token", "kind"), [({"a": 1}, "an object"), ([1], "an array"), (True, "a boolean"),
                                             (1.5, "the number 1.5"), (1.0, "a number written with a fraction")])
def test_a_token_of_another_type_is_invalid_params_naming_the_rule(token: object, kind: str) -> None:
    with serve(build()) as url:
        reply = httpx.post(url + "mcp", json=call(token), headers={"Accept": ACCEPT}, timeout=10)
    body = reply.json()
    assert body["id"] == 7, body
    assert body["error"]["code"] == -32602
    assert body["error"]["message"].startswith('Invalid params: "params._meta.progressToken" must be a string or an '
                                               "integer (MCP ProgressToken), not ")
    assert kind in body["error"]["message"]


@pytest.mark.parametrize("token", ["t" * 256, 7, None])
def test_a_token_mcp_allows_is_served(token: object) -> None:
    with serve(build()) as url:
        reply = httpx.post(url + "mcp", json=call(token), headers={"Accept": ACCEPT}, timeout=10)
    assert reply.json()["result"]["content"][0]["text"] == "3", reply.text


@pytest.mark.anyio
async def test_the_official_legacy_client_gets_the_error_and_keeps_its_connection() -> None:
    token = "t" * (MAX_ID_CHARS + 1)  # (the client itself refuses to send a token of another type)
    with serve(build()) as url:
        async with mcp_client(url + "sse", transport="sse", read_timeout_seconds=8) as session:
            request = t.CallToolRequest(params=t.CallToolRequestParams(
                name="add", arguments={"a": 1, "b": 2}, _meta={"progressToken": token}))
            with pytest.raises(MCPError) as refused:
                await session.send_request(request, t.CallToolResult)
            assert refused.value.error.code == -32602
            assert "progressToken" in refused.value.error.message
            assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5"
