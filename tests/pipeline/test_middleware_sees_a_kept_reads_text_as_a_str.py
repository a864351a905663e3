"""A middleware that looks at a ``resources/read`` of a large kept result sees its text as a ``str``, on
every transport: ``json.dumps(result)``, ``len(text)``, slicing and str methods work, and a middleware
may answer with the text replaced (trial 33, W5).

Streamable HTTP and stdio write a kept file's text a piece at a time when the route's chain has no
layer of the application's (tests/transports/test_a_kept_results_text_is_sent_from_its_file_a_piece_at_a_time.py
and tests/stdio/test_a_kept_results_text_is_written_to_its_line_a_piece_at_a_time.py show that). Before,
they did so with middleware too, which then got the open file (a ``KeptText``) and failed every such
read with -32603. The in-memory client always read the text whole; it is here to show every transport
gives a middleware the same.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from support import mcp_client, serve, stdio_in_process

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.timeout(60)

TEXT = ('é "quoted" \\ 😀\n' * 20_000) + "end"  # larger than a piece: read in many
HANDSHAKE = "2025-11-25"


class Audit:
    """A middleware doing ordinary str and dict work on a read's result; with ``replace``, it answers
    the read with the text upper-cased and marked."""

    def __init__(self, replace: bool) -> None:
        self.replace = replace
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method != "resources/read":
            return result
        text = result["contents"][0]["text"]
        self.seen.append({"type": type(text), "dumped": json.loads(json.dumps(result)) == result,
                          "len": len(text), "head": text[:3], "tail": text[-3:], "upper": text.upper()[:1]})
        if not self.replace:
            return result
        return {"contents": [{**result["contents"][0], "text": "!" + text.upper()}]}


def expected(audit: Audit) -> str:
    return "!" + TEXT.upper() if audit.replace else TEXT


def assert_saw_a_str(audit: Audit) -> None:
    assert audit.seen == [{"type": str, "dumped": True, "len": len(TEXT), "head": TEXT[:3], "tail": "end",
                           "upper": "É"}]


@pytest.fixture(params=[False, True], ids=["as-is", "replaced"])
def audited(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[MCPServer, Audit, str]:
    """A server with the audit middleware and a kept text (a file of its state dir, anyone's): the
    server, the middleware, the text's URI."""
    server = MCPServer("audited", state_dir=str(tmp_path), provenance=False)
    server.core.result_store.read_piece_bytes = 4096
    audit = Audit(request.param)
    server.add_middleware(audit)
    uri, _ = server.core.result_store.keep_parts(lambda: iter([TEXT]), "text/plain", ".txt", None)
    assert (tmp_path / "results" / uri.rpartition("/")[2]).exists()  # a file: read from it
    return server, audit, uri


def read_message(uri: str, request_id: int = 3) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": {"uri": uri}}


def test_over_streamable_http(audited: tuple[MCPServer, Audit, str]) -> None:
    server, audit, uri = audited
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": HANDSHAKE}
    with serve(server) as url:
        answer = httpx2.post(url + "mcp", json=read_message(uri), headers=headers, timeout=30)
    assert answer.status_code == 200
    assert answer.json()["result"]["contents"][0]["text"] == expected(audit)
    assert_saw_a_str(audit)


@pytest.mark.anyio
async def test_over_streamable_http_with_the_official_client_reading_a_tools_kept_result(tmp_path: Path) -> None:
    server = MCPServer("audited", state_dir=str(tmp_path), max_inline_bytes=1000, provenance=False)
    audit = Audit(replace=False)
    server.add_middleware(audit)

    @server.tool()
    def text() -> str:
        """A long text."""
        return TEXT

    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            called = await client.call_tool("text", {})
            link = next(block for block in called.content if block.type == "resource_link")
            read = await client.read_resource(link.uri)
    assert read.contents[0].text == TEXT
    assert_saw_a_str(audit)


def test_over_stdio(audited: tuple[MCPServer, Audit, str]) -> None:
    server, audit, uri = audited
    with stdio_in_process(server) as (in_w, written):
        os.write(in_w, json.dumps(read_message(uri)).encode() + b"\n")
        answer = written.get(timeout=30)
    assert answer["result"]["contents"][0]["text"] == expected(audit)
    assert_saw_a_str(audit)


@pytest.mark.anyio
async def test_in_memory(audited: tuple[MCPServer, Audit, str]) -> None:
    server, audit, uri = audited
    async with MemoryClient(server) as client:
        contents = await client.read_resource(uri)
    assert contents[0]["text"] == expected(audit)
    assert_saw_a_str(audit)


def test_the_documented_audit_logs_the_reads_size(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "middleware.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "async def audit(" in b)
    example: dict[str, Any] = {"__name__": "how_to_example"}
    exec(compile(block, "middleware.md", "exec"), example)
    server = MCPServer("audited", state_dir=str(tmp_path), provenance=False)
    server.add_middleware(example["audit"])
    uri, _ = server.core.result_store.keep_parts(lambda: iter([TEXT]), "text/plain", ".txt", None)
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": HANDSHAKE}
    with serve(server) as url, caplog.at_level(logging.INFO, "audit"):
        answer = httpx2.post(url + "mcp", json=read_message(uri), headers=headers, timeout=30)
    assert answer.json()["result"]["contents"][0]["text"] == TEXT
    dumped = len(json.dumps({"contents": [{"uri": uri, "mimeType": "text/plain", "text": TEXT}]}))
    assert f"read {uri}: {len(TEXT)} characters, {dumped} bytes of JSON" in caplog.messages
