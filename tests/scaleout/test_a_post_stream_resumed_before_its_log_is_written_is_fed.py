"""A client resuming a POST response stream on another process before the process answering its request
wrote the stream's log gets the rest of the stream.

The process serving a request sends each message to its client, then its queued write puts the message in the
stream's log in Redis (milliseconds later; more on a loaded host). A client whose connection dropped at once
resumes with ``Last-Event-ID`` on another process, which may look at the log in between. It found it empty and
took it for a dropped one: the client got a fresh GET stream and never the rest of its request's stream (an
elicitation replayed nowhere, the call's answer never seen: ``test_an_elicitation_is_replayed_and_its_answer_
reaches_the_waiting_process`` timed out once in CI on a loaded host). Now an empty log is waited on a moment
(``relay_streams.FIRST_ENTRY_MS``).

The interleaving is made, not hoped for: the test plays the answering process's late write, made once Redis
shows (``MONITOR``) that the resuming process looked at the empty log.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(60)

NAME = "late-log"
STREAM = "s0123456789ab1"
"""A POST stream id as another process of the server makes them (``s``, its random prefix, a count)."""


@contextmanager
def written_once_looked_at(url: str, key: str, fields: dict[str, str]) -> Iterator[list[str]]:
    """Watch Redis's commands; once one reads ``key`` (the resuming process looks at the log), add ``fields`` to it,
    as the answering process's queued write does. Yields what went wrong in the watcher (empty: nothing)."""
    watcher = redis.Redis.from_url(url, socket_timeout=20, decode_responses=True)  # a lost command fails, not hangs
    writer = redis.Redis.from_url(url, decode_responses=True)
    problems: list[str] = []

    def watch() -> None:
        try:
            for seen in monitor.listen():
                if key in seen["command"] and not seen["command"].startswith("XADD"):
                    writer.xadd(key, fields)
                    return
        except redis.RedisError as exc:
            problems.append(f"the look at the log was never seen: {exc}")

    with watcher.monitor() as monitor:
        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        try:
            yield problems
        finally:
            thread.join(25)


def test_the_answer_written_after_the_resume_looked_at_the_empty_log_reaches_the_client(
        redis_server: RedisServer) -> None:
    with serve(MCPServer(NAME, state_url=redis_server.url)) as base:
        url = base + "mcp"
        session = wire.initialize(url)
        key = f"nanohubmcp:{NAME}:ev:{session_key(session)}:{STREAM}"
        answer = {"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": "late"}]}}
        # The call's answer, its stream's second event (the first: the priming event, all the client got).
        entry = {"m": json.dumps(answer), "f": "1", "e": f"{STREAM}.2", "o": "another-process", "r": "9"}
        with written_once_looked_at(redis_server.url, key, entry) as problems:
            resumed = wire.open_get(url, session, last_event_id=f"{STREAM}.1")
            try:
                assert resumed.status == 200
                event_id, message = resumed.next(step="the answer written after the resume looked at the log")
                assert message == answer, message
                assert event_id == f"{STREAM}.2"
                assert resumed.next(step="the end of the resumed stream") == (None, None)
            finally:
                resumed.close()
        assert not problems, problems
