"""JSON-RPC batches: answered as one array for sessions on 2024-11-05 and 2025-03-26; refused with
one clear -32600 on 2025-06-18 and later, where batching was removed.

Source: MCP 2025-03-26, Basic (batching added); MCP 2025-06-18, Changelog (batching removed);
JSON-RPC 2.0 § 6 (batch: responses in an array, none for notifications, one error per bad item).
"""

from __future__ import annotations

import pytest
from stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("batches")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


MIXED = [
    {"jsonrpc": "2.0", "id": "x1", "method": "tools/call",
     "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
    {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
    {"jsonrpc": "2.0", "id": "x2", "method": "ping"},
    {"jsonrpc": "2.0", "id": "x3", "method": "no/such/method"},
    42,
]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26"])
def test_a_batch_is_answered_as_an_array_with_one_answer_per_request(version: str) -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(version=version)
        reply = wire.post(MIXED, session, version=version)
        assert reply.status == 200
        assert reply.headers.get("Content-Type", "").startswith("application/json")
        answers = reply.json
        assert isinstance(answers, list)
        assert len(answers) == 4
        by_id = {a["id"]: a for a in answers}
        assert by_id["x1"]["result"]["content"] == [{"type": "text", "text": "3"}]
        assert by_id["x2"]["result"] == {}
        assert by_id["x3"]["error"]["code"] == -32601
        assert by_id[None]["error"]["code"] == -32600


def test_a_batch_of_notifications_only_gets_202_and_initialize_may_not_be_batched() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(version="2025-03-26")
        only_notes = wire.post([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}], session,
                               version="2025-03-26")
        assert only_notes.status == 202
        assert only_notes.body == b""
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}}
        refused = wire.post([init], session, version="2025-03-26")
        assert refused.json[0]["error"]["code"] == -32600
        assert "initialize" in refused.json[0]["error"]["message"]
        assert refused.json[0]["id"] == 1  # its own id, so the client can match it (trial25 F5; was null)
        empty = wire.post([], session, version="2025-03-26")
        assert empty.status == 400
        assert empty.json["error"]["code"] == -32600


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_later_versions_refuse_a_batch_with_one_clear_error(version: str) -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(version=version)
        reply = wire.post(MIXED[:3], session, version=version)
        assert reply.status == 400
        error = reply.json
        assert isinstance(error, dict)
        assert error["id"] is None
        assert error["error"]["code"] == -32600
        assert "batch" in error["error"]["message"]
        assert version in error["error"]["message"]
        # Nothing in the refused batch ran: the session still answers one message at a time.
        assert wire.request("ping", {}, session, version=version)["result"] == {}


def test_sessionless_batches_follow_the_version_header() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        ping = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
        assert wire.post(ping, None, version="2025-03-26").json == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
        refused = wire.post(ping, None, version="2025-06-18")
        assert refused.status == 400
        assert refused.json["error"]["code"] == -32600


def test_a_batch_for_an_unknown_session_is_404() -> None:
    with serve(build()) as url:
        reply = Wire(url).post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "no-such-session",
                               version="2025-03-26")
        assert reply.status == 404


def test_a_legacy_sse_session_on_2024_11_05_gets_its_batch_answer_as_one_array_on_its_stream() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        try:
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "0"}}}
            assert wire.legacy_post(endpoint, init).status == 202
            events.until(lambda m: isinstance(m, dict) and m.get("id") == 0)
            assert wire.legacy_post(endpoint, MIXED).status == 202
            _, answers = events.until(lambda m: isinstance(m, list))
            assert sorted(str(a["id"]) for a in answers) == ["None", "x1", "x2", "x3"]
        finally:
            events.close()
