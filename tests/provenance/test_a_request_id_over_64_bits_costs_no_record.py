"""A call whose integer request id does not fit in 64 bits (MCP allows any integer; this server up to
256 digits) leaves its record, read back with the id as sent, and costs no other record written in
the same batch: the writer failed the whole batch (``OverflowError: Python int too large to convert
to SQLite INTEGER``), other callers' records with it, and logged a traceback (trial41 Q5). A real
server over ``/mcp`` and real SQLite; the requests follow each other within the writer's gathering
time, so their records are written in one batch."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)

IDS = [1, 2**63, -(2**63) - 1, 10**255, 3]


def _post(url: str, body: str) -> dict:
    reply = httpx.post(url, content=body.encode(), headers={"Content-Type": "application/json",
                       "Accept": "application/json, text/event-stream"}, timeout=10)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_every_record_of_the_batch_is_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("bigid", state_dir=str(tmp_path))

    @server.tool()
    def add(a: float, b: float) -> float:
        """``a + b``."""
        return a + b

    with serve(server) as url:
        uris = []
        for request_id in IDS:
            body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",' \
                   '"params":{"name":"add","arguments":{"a":1,"b":2}}}'
            answer = _post(url, body)
            assert answer["id"] == request_id
            uris.append(answer["result"]["_meta"][PROVENANCE_META])
        read = []
        for uri in uris:
            answer = _post(url, json.dumps({"jsonrpc": "2.0", "id": 9, "method": "resources/read",
                                            "params": {"uri": uri}}))
            assert "result" in answer, answer
            read.append(json.loads(answer["result"]["contents"][0]["text"])["request_id"])
    assert read == IDS
    assert not [r for r in caplog.records if r.name.startswith("nanohubmcp.provenance")]
