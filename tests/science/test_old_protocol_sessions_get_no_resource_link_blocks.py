"""A session that negotiated a protocol version without ``resource_link`` blocks (2024-11-05, 2025-03-26: they
arrived in 2025-06-18) gets a text block naming the resource's URI in each one's place, on every path that
answers content: ``tools/call`` (a ``ResourceLink`` returned, a picture kept for being over ``max_inline_bytes``),
a background job's result polled with ``get_job_result``, ``prompts/get`` (trial 45, T45-18). The URI so named
reads with ``resources/read``. From 2025-06-18 on the link is sent as it is.

Raw JSON-RPC over Streamable HTTP, each version negotiated with ``initialize`` (the official client speaks only
the newest).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import numpy as np
import pytest
from support import serve, wait_until

from nanohubmcp import MCPServer, PromptResult, ResourceLink, ToolResult

pytestmark = pytest.mark.timeout(120)


def build() -> MCPServer:
    server = MCPServer("old-links", provenance=False, max_inline_bytes=20_000)

    @server.tool()
    def linked() -> ToolResult:
        """A link the tool made itself."""
        return ToolResult(content=["see the table", ResourceLink("data://table", name="table.csv",
                                                                 mime_type="text/csv")])

    @server.tool()
    def big_picture() -> Any:
        """A picture over max_inline_bytes: kept, sent as a link."""
        from PIL import Image
        pixels = np.random.default_rng(1).integers(0, 255, (200, 200, 3), dtype=np.uint8)
        return [Image.fromarray(pixels), "caption"]

    @server.async_tool()
    def linked_job() -> ToolResult:
        """The link, from a job."""
        return linked()

    @server.resource("data://table", mime_type="text/csv")
    def table() -> str:
        return "a,b\n1,2\n"

    @server.prompt()
    def with_link() -> PromptResult:
        """A prompt holding a link."""
        return PromptResult(["look at this", ResourceLink("data://table", name="table.csv")])

    return server


class Session:
    """One Streamable HTTP session of protocol ``version`` (plain JSON answers)."""

    def __init__(self, url: str, version: str) -> None:
        self.url, self.version, self.next_id = url + "mcp", version, 1
        self.headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        answer, headers = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}})
        assert answer["result"]["protocolVersion"] == version
        self.headers["Mcp-Session-Id"] = headers["Mcp-Session-Id"]
        self.headers["MCP-Protocol-Version"] = version
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> tuple[Any, Any]:
        request = urllib.request.Request(self.url, json.dumps(message).encode(), self.headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read().decode()
            if response.headers.get("Content-Type", "").startswith("text/event-stream"):
                body = [line[5:] for line in body.splitlines() if line.startswith("data:") and line[5:].strip()][-1]
            return (json.loads(body) if body.strip() else None), response.headers

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        answer = self._post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})[0]
        assert "result" in answer, answer
        return answer["result"]


def kinds(content: list[dict[str, Any]]) -> list[str]:
    return [block["type"] for block in content]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26"])
def test_a_session_of_a_version_without_resource_links_gets_a_text_naming_the_uri(version: str) -> None:
    with serve(build()) as url:
        session = Session(url, version)
        linked = session.call("tools/call", {"name": "linked", "arguments": {}})
        assert kinds(linked["content"]) == ["text", "text"]
        assert linked["content"][1]["text"] == ("Resource 'table.csv' (text/csv), read it with resources/read: "
                                                "data://table")
        assert session.call("resources/read", {"uri": "data://table"})["contents"][0]["text"] == "a,b\n1,2\n"

        picture = session.call("tools/call", {"name": "big_picture", "arguments": {}})
        assert "resource_link" not in kinds(picture["content"])
        named = [block["text"] for block in picture["content"] if "read it with resources/read: " in block["text"]]
        assert named
        assert named[0].startswith("Resource 'image.png' (image/png, ")
        uri = named[0].splitlines()[0].rsplit(": ", 1)[1]
        assert session.call("resources/read", {"uri": uri})["contents"][0]["mimeType"] == "image/png"

        started = session.call("tools/call", {"name": "linked_job", "arguments": {}})
        assert "resource_link" not in kinds(started["content"])
        job_id = json.loads(started["content"][0]["text"])["job_id"]
        ended = wait_until(lambda: (lambda got: None if '"running"' in got["content"][0]["text"] else got)(
            session.call("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})), "the job")
        assert "resource_link" not in json.dumps(ended), ended
        assert "read it with resources/read: data://table" in json.dumps(ended)

        prompt = session.call("prompts/get", {"name": "with_link"})
        assert [message["content"]["type"] for message in prompt["messages"]] == ["text", "text"]
        assert prompt["messages"][1]["content"]["text"].endswith("read it with resources/read: data://table")


def test_from_2025_06_18_on_the_link_is_sent_as_it_is() -> None:
    with serve(build()) as url:
        session = Session(url, "2025-06-18")
        linked = session.call("tools/call", {"name": "linked", "arguments": {}})
        assert kinds(linked["content"]) == ["text", "resource_link"]
        assert linked["content"][1]["uri"] == "data://table"
        picture = session.call("tools/call", {"name": "big_picture", "arguments": {}})
        assert "resource_link" in kinds(picture["content"])
        prompt = session.call("prompts/get", {"name": "with_link"})
        assert prompt["messages"][1]["content"]["type"] == "resource_link"
