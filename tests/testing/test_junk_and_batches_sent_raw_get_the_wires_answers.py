"""``client.send(message)`` of the in-memory clients takes what a broken or older client sends — raw text
that is not JSON, JSON that is no message, a batch — and answers it as the wire does: the same JSON-RPC
answer ``POST /`` gives the same body (-32700, -32600, a list of replies where the version has batches).
A fresh-user trial's ``send("garbage")`` and ``send([1, 2])`` raised ``AttributeError`` inside the helper,
with a "coroutine was never awaited" warning (trial26 F13)."""

from __future__ import annotations

import http.client
import json
import re
import warnings
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.testing import in_memory


def build() -> MCPServer:
    server = MCPServer("raw")

    @server.tool()
    def echo(s: str) -> str:
        """Echo the text."""
        return s

    return server


CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"s": "hi"}}}
SENT: list[Any] = [
    "garbage",  # raw text: not JSON
    b'{"jsonrpc": ',
    5,  # JSON, but no message
    ["not", "messages"],
    [1, 2],
    [],
    [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, CALL, {"jsonrpc": "2.0", "method": "notifications/initialized"}],
    [{"jsonrpc": "2.0", "method": "notifications/initialized"}],  # a batch owed no answer
]


def over_http(base: str, body: bytes) -> Any:
    host, port = base.split("//")[1].strip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/", body, {"Content-Type": "application/json", "Accept": "application/json"})
    reply = conn.getresponse()
    data = reply.read()
    conn.close()
    return json.loads(data) if data else None


def same_records(answer: Any) -> Any:
    """``answer`` with its provenance record ids (one per call, fresh on each server) made alike."""
    return json.loads(re.sub(r"nanohubmcp://provenance/[\w-]+", "nanohubmcp://provenance/ID", json.dumps(answer)))


def raw(message: Any) -> bytes:
    return message.encode() if isinstance(message, str) else message if isinstance(message, bytes) else \
        jsonenc.dumpb(message)


@pytest.mark.parametrize("message", SENT, ids=[repr(m)[:30] for m in SENT])
def test_in_memory_answers_as_post_does(message: Any) -> None:
    server = build()
    with serve(server) as base:
        wire = over_http(base, raw(message))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine was never awaited"
        with in_memory(build(), version="2025-03-26", session=False) as client:
            assert same_records(client.send(message)) == same_records(wire)
            assert client.call_tool("echo", {"s": "still"})["content"][0]["text"] == "still"


def test_the_answers_are_the_documented_ones() -> None:
    with in_memory(build(), version="2025-03-26", session=False) as client:
        assert client.send("garbage")["error"]["code"] == -32700
        assert client.send(5)["error"]["code"] == -32600
        batch = client.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, CALL])
        assert [reply["id"] for reply in batch] == [1, 2]
        assert batch[1]["result"]["content"][0]["text"] == "hi"
    with in_memory(build()) as client:  # 2025-11-25, a session: no batches, as over HTTP
        refused = client.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert refused["error"]["code"] == -32600
        assert "batches are not part of protocol 2025-11-25" in refused["error"]["message"]
