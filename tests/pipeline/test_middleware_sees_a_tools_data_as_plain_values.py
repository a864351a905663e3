"""A middleware that looks at a ``tools/call`` whose data the server wrote ahead as JSON text (a numpy
array, a DataFrame, a list of numbers) sees that data as plain JSON values, on every transport:
``json.dumps(result)``, ``len``, indexing and ``type(...) is list`` work, and a middleware may change the
data in place or answer with a result of its own (trial 33, after W5).

Before, ``structuredContent["result"]`` reached it as a ``encoded.Encoded`` (the written text): an
ordinary audit layer doing ``json.dumps(result)`` failed every such call with -32603, and changing
the data in place was impossible. A server without middleware keeps writing that text as it is
(tests/results/ and bench/science_instructions.py cover the fast path).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
import pandas as pd
import pytest
from support import serve, stdio_in_process, without_provenance

from nanohubmcp import MCPServer, Request
from nanohubmcp.protocol import text_pieces
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.server.results.decoded import decoded
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.timeout(60)

HANDSHAKE = "2025-11-25"


def array() -> Any:
    """An array of floats."""
    return np.arange(10000.0)


def frame() -> Any:
    """A table."""
    return pd.DataFrame({"t": np.arange(300) * 1e-3, "step": np.arange(300), "label": ["a", "b", "c"] * 100})


def numbers() -> Any:
    """A plain list."""
    return list(range(500))


TOOLS = {"array": array, "frame": frame, "numbers": numbers}


class Audit:
    """A middleware doing ordinary work on a call's result; with ``change``, it appends to the data
    in place."""

    def __init__(self, change: bool) -> None:
        self.change = change
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method != "tools/call":
            return result
        data = result["structuredContent"]["result"]
        self.seen.append({"list": type(data) is list, "dumped": json.loads(json.dumps(result)) == result,
                          "len": len(data), "first": data[0]})
        if self.change:
            data.append("audited")
        return result


def make(change: bool) -> tuple[MCPServer, Audit]:
    server = MCPServer("audited", provenance=False)
    for name, fn in TOOLS.items():
        server.tool(name=name)(fn)
    audit = Audit(change)
    server.add_middleware(audit)
    return server, audit


async def unaudited(name: str) -> dict[str, Any]:
    """What a server without middleware answers ``name``."""
    server = MCPServer("plain", provenance=False)
    server.tool(name=name)(TOOLS[name])
    async with MemoryClient(server) as client:
        return await client.call_tool(name, {})


def check(audit: Audit, name: str, got: dict[str, Any], expected: dict[str, Any]) -> None:
    data = expected["structuredContent"]["result"]
    assert audit.seen == [{"list": True, "dumped": True, "len": len(data), "first": data[0]}]
    if audit.change:
        expected = {**expected, "structuredContent": {"result": [*data, "audited"]}}
    assert got == expected


@pytest.fixture(params=[False, True], ids=["as-is", "changed"])
def change(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.mark.anyio
@pytest.mark.parametrize("name", list(TOOLS))
async def test_over_streamable_http(name: str, change: bool) -> None:
    server, audit = make(change)
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": {}}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": HANDSHAKE}
    with serve(server) as url:
        answer = httpx2.post(url + "mcp", json=message, headers=headers, timeout=30)
    assert answer.status_code == 200
    check(audit, name, answer.json()["result"], await unaudited(name))


@pytest.mark.anyio
@pytest.mark.parametrize("name", list(TOOLS))
async def test_over_stdio(name: str, change: bool) -> None:
    server, audit = make(change)
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": {}}}
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    with stdio_in_process(server) as (in_w, written):
        os.write(in_w, json.dumps(hello).encode() + b"\n")
        assert written.get(timeout=30)["result"]["protocolVersion"] == HANDSHAKE
        os.write(in_w, json.dumps(message).encode() + b"\n")
        answer = written.get(timeout=30)
    check(audit, name, answer["result"], await unaudited(name))


@pytest.mark.anyio
@pytest.mark.parametrize("name", list(TOOLS))
async def test_in_memory(name: str, change: bool) -> None:
    server, audit = make(change)
    async with MemoryClient(server) as client:
        got = await client.call_tool(name, {})
    check(audit, name, got, await unaudited(name))


class Pieces(text_pieces.TextPieces):
    """A text read in two pieces, noting when it was closed."""

    size = 5
    closed = False

    def pieces(self) -> Iterator[str]:
        yield from ("ab", "c")

    def close(self) -> None:
        self.closed = True


def test_decoded_turns_only_the_written_ahead_values_into_plain_ones() -> None:
    encoded = Encoded("[1,2.5,[3]]")
    result: dict[str, Any] = {"content": [{"type": "text", "text": "[1,2.5,[3]]"}],
                              "structuredContent": {"result": encoded, "n": 1}}
    plain = decoded(result)
    assert plain == {"content": result["content"], "structuredContent": {"result": [1, 2.5, [3]], "n": 1}}
    assert plain["content"] is result["content"]
    assert result["structuredContent"]["result"] is encoded
    plain["structuredContent"]["result"][2].append(4)  # the caller's own copy: the Encoded's value is untouched
    assert encoded.value == [1, 2.5, [3]]
    assert decoded(result)["structuredContent"]["result"] == [1, 2.5, [3]]
    assert decoded({"structuredContent": encoded}) == {"structuredContent": [1, 2.5, [3]]}
    untouched = {"content": [], "structuredContent": {"result": [1]}}
    assert decoded(untouched) is untouched
    pieces = Pieces()
    read = decoded({"contents": [{"uri": "u", "text": pieces}, {"uri": "v", "blob": "AA=="}]})
    assert read == {"contents": [{"uri": "u", "text": "abc"}, {"uri": "v", "blob": "AA=="}]}
    assert type(read["contents"][0]["text"]) is str
    assert pieces.closed


def test_the_documented_audit_logs_the_datas_size(caplog: pytest.LogCaptureFixture) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "middleware.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "async def audit_data(" in b)
    example: dict[str, Any] = {"__name__": "how_to_example"}
    exec(compile(block, "middleware.md", "exec"), example)
    server: MCPServer = example["server"]
    server.tool(name="array")(array)
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "array", "arguments": {}}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": HANDSHAKE}
    with serve(server) as url, caplog.at_level(logging.INFO, "audit"):
        answer = httpx2.post(url + "mcp", json=message, headers=headers, timeout=30)
    result = without_provenance(answer.json()["result"])  # the record's link is added outside the layer
    assert result["structuredContent"]["result"] == np.arange(10000.0).tolist()
    assert f"array answered 10000 values, {len(json.dumps(result))} bytes of JSON" in caplog.messages
