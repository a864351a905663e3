"""REST has no resources/read, so its answers carry all of the data: a large list over REST is the list itself,
not MCP blocks with a link the caller cannot follow (fresh-user trial F19). Over MCP a large result is still kept
aside and linked, and so is a very long text (a runaway log: it was sent inline whatever its size, F20)."""

from __future__ import annotations

import json
import urllib.request

from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("big-results", max_inline_bytes=1000)

    @server.tool()
    def biglist(n: int) -> list:
        """A long list."""
        return list(range(n))

    @server.tool()
    def log(n: int) -> str:
        """A long text."""
        return "x" * n

    return server


def post(url: str, body: dict, headers: dict | None = None) -> dict:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def call(url: str, name: str, arguments: dict) -> dict:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    return post(url, message, {"MCP-Protocol-Version": "2025-11-25"})["result"]


def test_rest_answers_a_large_list_whole_and_mcp_links_it() -> None:
    with serve(build()) as url:
        assert post(url + "tools/biglist", {"n": 5000}) == {"result": list(range(5000))}
        result = call(url, "biglist", {"n": 5000})
        assert [block["type"] for block in result["content"]] == ["text", "resource_link"]


def test_a_long_text_is_kept_aside_over_mcp_and_whole_over_rest() -> None:
    with serve(build()) as url:
        result = call(url, "log", {"n": 5000})
        assert [block["type"] for block in result["content"]] == ["text", "resource_link"]
        assert result["content"][1]["mimeType"] == "text/plain"
        assert result["content"][0]["text"].startswith("Preview (first 400 characters): xxx")
        assert call(url, "log", {"n": 10})["content"] == [{"type": "text", "text": "x" * 10}]
        assert post(url + "tools/log", {"n": 5000}) == {"result": "x" * 5000}
