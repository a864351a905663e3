"""A call a stopping server answers within its exit grace has its answer in the session's Redis event log, so a
client resuming the call's stream (``Last-Event-ID``) on another process receives it.

Before, the stop closed the server's link to Redis as it began (SIGTERM): its writer of event logs was cancelled
then, so the answers of the calls that ended during the drain were delivered on their connection but never
written to Redis, and a client resuming on another process (or on a ``--workers`` sibling) got "the server process
serving this request stopped before it answered" for a call that had answered. The store now closes once the
drain ended the streams, writing what is queued first (bounded).
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
import redis
import wire
from app_processes import app_processes
from redis_server import RedisServer

from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(90)

NAME = "lastanswer"
APP = f'''
import time

from nanohubmcp import Context, MCPServer

server = MCPServer("{NAME}")


@server.tool()
def slow(seconds: float, ctx: Context) -> str:
    """Say that it began, then take ``seconds`` (never looking at ctx.is_cancelled())."""
    ctx.report_progress(0, 1, "began")
    time.sleep(seconds)
    return "finished"
'''


def test_the_answer_of_a_call_that_ended_during_the_stop_is_resumed_on_another_process(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    app = tmp_path / "last_answer_app.py"
    app.write_text(APP)
    with app_processes(app, redis_server.url, tmp_path) as (stopping, other):
        url, other_url = stopping.url, other.url
        session = wire.initialize(url)
        call = wire.Events("POST", url, wire.headers(session), {
            "jsonrpc": "2.0", "id": 51, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"seconds": 2}, "_meta": {"progressToken": "p"}},
        })
        began_id, began = call.next()
        assert began["method"] == "notifications/progress", began
        assert began_id is not None
        time.sleep(0.5)  # the brief's moment: SIGTERM half a second into the 2 s call
        stopping.proc.send_signal(signal.SIGTERM)
        answer_id, answer = call.next(timeout=15)
        assert answer is not None, "the stopping server ended the call's stream without its answer"
        assert answer["id"] == 51, answer
        assert answer["result"]["content"][0]["text"] == "finished", answer
        assert answer_id is not None
        assert answer_id.split(".")[0] == began_id.split(".")[0]  # the call's stream
        call.close()
        assert stopping.proc.wait(20) == 0, stopping.text()

        # In the session's event log, as a resuming process reads it (RelayStream: the entry's producer event id).
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
            entries = client.xrange(f"nanohubmcp:{NAME}:ev:{session_key(session)}:{answer_id.split('.')[0]}")
        logged = {fields.get("e"): fields for _, fields in entries}
        assert answer_id in logged, f"the answer is not in the Redis event log: {sorted(logged, key=str)}"
        assert json.loads(logged[answer_id]["m"]) == answer
        assert logged[answer_id]["f"] == "1"

        # And a client that lost the stream after the progress event resumes it on the other process.
        resumed = wire.open_get(other_url, session, last_event_id=began_id)
        try:
            assert resumed.status == 200
            again_id, again = resumed.next(timeout=20)
            assert (again_id, again) == (answer_id, answer)
        finally:
            resumed.close()
