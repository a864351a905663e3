"""A legacy HTTP+SSE stream delivers every message written to its session's log after the
``endpoint`` event, however late its reader starts.

The stream's process reads the session's event log (Redis) into the stream; the answers to its
POSTs are written there by whichever process serves them. Here each process's first read of a
stream's log comes a second late (as on a loaded machine, where the reader's task gets the CPU
after the client's first POST was served): the answer to ``initialize``, written meanwhile, must
still arrive. Before the fix the reader started at "whatever comes next" (``XREAD $``), skipped
it, and the client waited for ever (CI's 120 s hang of the balancer test's legacy session).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from bounded import ANSWER_SECONDS, SESSION_SECONDS, answered_within
from cluster import Cluster
from nginx_weber import find_nginx
from redis_server import RedisServer
from support import installed, mcp_client

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def late_readers(redis_server: RedisServer, tmp_path: Path) -> Iterator[Cluster]:
    """Three processes behind nginx, each starting to read a stream's log a second late."""
    nodes = Cluster(installed(find_nginx(), "nginx"), tmp_path, redis_server.url, SCALEOUT_LATE_FIRST_READ="1")
    try:
        yield nodes
    finally:
        nodes.close()


@pytest.mark.anyio
async def test_the_first_answers_reach_a_stream_whose_reader_starts_late(late_readers: Cluster) -> None:
    sse_url = late_readers.url.removesuffix("/mcp") + "/sse"
    pids = set()
    async with (
        answered_within(SESSION_SECONDS, "the legacy SSE session (initialize, then 'where' x6)"),
        mcp_client(sse_url, transport="sse", read_timeout_seconds=ANSWER_SECONDS) as session,
    ):
        for _ in range(6):
            pids.add(json.loads((await session.call_tool("where", {})).content[0].text)["pid"])
    assert len(pids) == 3  # the POSTs were served by every process, the answers all came on the stream
