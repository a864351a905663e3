"""A GET resuming a session's stream from a ``Last-Event-ID`` whose position is no entry id Redis takes
(``g.abc-def``, ``g.1-99999999999999999999``: a client's header), or an entry id past the log's newest entry
(``g.99999999999999-0``: another deployment's, a made-up one), is fed like one resuming from any other position
that is no entry of the log: the stream's log, then what comes.

Before, the reader sent the first to ``XREAD``, Redis refused it (``ERR Invalid stream ID``), the reader's task
ended with that error, and the client's stream stayed open (200) and never got a message; the second Redis took,
the reader waited for entries after it, every entry written had a lower id, and the stream stayed as silent
(review r30 F12). Here a real ``nanohubmcp run`` process on a real redis-server: a subscribed resource changes
after such a GET opened, and its notification reaches the client.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import wire
from cluster import Server
from redis_server import RedisServer, free_port

pytestmark = pytest.mark.timeout(90)


def test_a_get_from_a_malformed_position_gets_the_next_message(redis_server: RedisServer, tmp_path: Path) -> None:
    server = _fed_after(redis_server, tmp_path, ("g.abc-def", "g.1-99999999999999999999", "g.-"))
    assert "Invalid stream ID" not in server.text(), server.report()


def test_a_get_from_a_position_past_the_logs_end_gets_the_next_message(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    _fed_after(redis_server, tmp_path, ("g.99999999999999-0", f"g.{2**64 - 1}-{2**64 - 1}"))


def _fed_after(redis_server: RedisServer, tmp_path: Path, positions: tuple[str, ...]) -> Server:
    """Open a GET from each position in turn, touch the subscribed resource, and assert its notification comes;
    the (stopped) server, for its output."""
    env = {**os.environ, "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    env.pop("NANOHUBMCP_STATE_URL", None)
    server = Server(tmp_path, free_port(), redis_server.url, env=env)
    try:
        server.wait_listening()
        session = wire.initialize(server.url)
        assert wire.call(server.url, session, "resources/subscribe", {"uri": "note://current"}).status_code == 200
        for n, position in enumerate(positions):
            stream = wire.open_get(server.url, session, last_event_id=position)
            try:
                assert stream.status == 200
                wire.tool(server.url, session, "touch_note", {"text": f"changed {n}"})
                event_id, message = stream.next(timeout=15)  # (before: nothing, ever)
                while message is not None and message.get("method") != "notifications/resources/updated":
                    event_id, message = stream.next(timeout=15)
                assert message == {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                   "params": {"uri": "note://current"}}, (position, message)
                assert str(event_id).startswith("g.")
            finally:
                stream.close()
    finally:
        server.stop()
    return server
