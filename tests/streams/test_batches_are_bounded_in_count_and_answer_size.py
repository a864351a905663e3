"""Issue 13 § 3: a batch is bounded in members and in the size of its answer.

60,000 ``tools/list`` in one 3 MB body used to build a 124 MB answer while the event loop
served nothing else. Now a batch of more than 100 members is refused whole with -32600, and
members whose answers would take the batch past its size limit are refused one by one with
-32600 (each request still gets exactly one reply).

Source: JSON-RPC 2.0 § 6 (batch); MCP 2025-03-26, Basic (batching).
"""

from __future__ import annotations

import pytest
from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server import batches as batch


def build() -> MCPServer:
    server = MCPServer("batch-limits", max_inline_bytes=None)  # big answers stay inline: the batch bound is tested

    @server.tool()
    def blob(size: int) -> str:
        """A string of ``size`` x's."""
        return "x" * size

    return server


@pytest.mark.parametrize("session", [True, False])
def test_a_batch_of_more_than_100_messages_is_refused_with_32600(session: bool) -> None:
    with serve(build()) as url:
        wire = Wire(url)
        sid = wire.initialize(version="2025-03-26") if session else None
        items = [{"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(101)]
        reply = wire.post(items, sid, version="2025-03-26")
        assert reply.status == 400
        error = reply.json["error"]
        assert error["code"] == -32600
        assert "at most 100 messages" in error["message"]
        assert "101" in error["message"]
        items = items[:100]
        reply = wire.post(items, sid, version="2025-03-26")
        assert reply.status == 200
        assert len(reply.json) == 100


def test_members_past_the_answer_size_limit_are_refused_one_by_one(monkeypatch) -> None:
    monkeypatch.setattr(batch, "MAX_BATCH_RESPONSE_BYTES", 1 << 20)
    with serve(build()) as url:
        wire = Wire(url)
        sid = wire.initialize(version="2025-03-26")
        items = [
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "blob", "arguments": {"size": 300_000}},
            }
            for i in range(6)
        ]
        reply = wire.post(items, sid, version="2025-03-26")
        assert reply.status == 200
        answers = {a["id"]: a for a in reply.json}
        assert sorted(answers) == list(range(6))
        served = [i for i in range(6) if "result" in answers[i]]
        refused = [i for i in range(6) if "error" in answers[i]]
        assert served == [0, 1, 2]
        assert refused == [3, 4, 5]
        assert all(answers[i]["error"]["code"] == -32600 for i in refused)
        assert "on its own" in answers[3]["error"]["message"]
        assert "Not served" in answers[4]["error"]["message"]
        assert len(reply.body) < 1.2 * (1 << 20)
