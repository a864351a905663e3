"""One nesting limit for client JSON, applied when the body is parsed (trial12 MED-1): arguments
nested 500 levels deep were accepted (the parser refused only at ~990, on Python's recursion
limit) and a cached tool then answered 500 (RecursionError building its cache key). Now a body
nested more than ``MAX_JSON_DEPTH`` (128) levels is a 400 saying the limit, over REST and /mcp,
and the server keeps serving. A real server."""

from __future__ import annotations

import json

import httpx2 as httpx
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol.jsonrpc import MAX_JSON_DEPTH


def build() -> MCPServer:
    server = MCPServer("deep-args", job_store="memory")

    @server.tool(cache=True)
    def cecho(data: list) -> str:
        """Cached."""
        return "ok"

    return server


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_rest_arguments_200_levels_deep_are_a_400_saying_the_limit() -> None:
    with serve(build()) as url:
        body = '{"data":' + nested(200) + "}"
        reply = httpx.post(f"{url}tools/cecho", content=body, headers={"Content-Type": "application/json"}, timeout=10)
        assert reply.status_code == 400, reply.text
        assert f"nested more than {MAX_JSON_DEPTH} levels deep" in reply.json()["error"]
        # brackets inside strings do not count, and an argument just within the limit is served
        within = json.dumps({"data": [nested(300), *json.loads(nested(MAX_JSON_DEPTH - 2))]})
        assert httpx.post(
            f"{url}tools/cecho", content=within, headers={"Content-Type": "application/json"}, timeout=10
        ).json() == {"result": "ok"}


def test_mcp_arguments_too_deep_are_a_parse_error() -> None:
    with serve(build()) as url:
        body = (
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cecho","arguments":{"data":'
            + nested(500)
            + "}}}"
        )
        reply = httpx.post(
            f"{url}mcp",
            content=body,
            timeout=10,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        assert reply.status_code == 400, reply.text
        assert reply.json()["error"]["code"] == -32700
        assert f"nested more than {MAX_JSON_DEPTH} levels deep" in reply.json()["error"]["message"]
