"""Polls of a done job waiting for another process's keep of its large data (a reservation of another host's
process, which holds up to ``RESERVED_SECONDS``) wait on the keep pool
(:mod:`nanohubmcp.server.executors.keep_threads`), not on the event loop's default executor: a call whose large
body is parsed there is answered meanwhile, and the polls answer the link once the reservation is given up.

Before (review r25 MED-1): each waiting poll held a default-executor thread; eight polls held them all, and a
1.1 MB call of another tool waited with them (9.7 s instead of 0.04 s in the review's run).

A real server on real SQLite, polled over HTTP.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import pytest
from support import post_rpc, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.executors import kept_slot

pytestmark = pytest.mark.timeout(180)

DATA = {"y": list(range(18_000))}  # ~107 KB of JSON: kept, not answered inline
POLLS = 8
AT_ONCE = kept_slot.RESERVED_SECONDS / 6


def build(state: Path) -> MCPServer:
    server = MCPServer("keep-pool", max_inline_bytes=4096, state_dir=str(state))

    @server.async_tool()
    def big() -> dict[str, Any]:
        """About 100 KB of data."""
        return DATA

    @server.tool()
    def echo(text: str) -> int:
        """The text's length."""
        return len(text)

    return server


def _keeping() -> int:
    """How many threads of this process are in a keep (``PolledData.kept``) now."""
    return sum(
        any(frame.f_code.co_name == "kept" and frame.f_code.co_filename.endswith("polled_data.py")
            for frame, _ in traceback.walk_stack(top))
        for top in sys._current_frames().values())


def test_polls_waiting_for_another_hosts_keep_leave_the_default_executor_free(tmp_path: Path) -> None:
    server = build(tmp_path / "state")
    with serve(server) as url:
        started = post_rpc(url, "tools/call", {"name": "big", "arguments": {}})["result"]
        job_id = json.loads(started["content"][0]["text"])["job_id"]
        records = server.core.job_service.jobs.backend
        wait_until(lambda: records.summaries([job_id], ("id", "status"))[0]["status"] == "completed", "the job")
        planted = [{"pending": "another-host", "since": time.time(), "host": "another-host", "pid": 1, "start": 1}]
        assert records.keep_data(job_id, planted, None) == planted
        answers: list[dict[str, Any]] = []
        polls = [threading.Thread(target=lambda: answers.append(post_rpc(
            url, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}}, timeout=120)))
            for _ in range(POLLS)]
        for poll in polls:
            poll.start()
        wait_until(lambda: _keeping() >= 4, "the polls to wait in their keeps")
        began = time.monotonic()
        echoed = post_rpc(url, "tools/call", {"name": "echo", "arguments": {"text": "y" * 1_100_000}}, timeout=120)
        took = time.monotonic() - began
        assert took < AT_ONCE  # before: until the reservation was RESERVED_SECONDS old
        assert echoed["result"]["content"] == [{"type": "text", "text": "1100000"}]
        assert records.summaries([job_id], ("id", "kept_data"))[0]["kept_data"] == planted  # still waiting
        assert records.keep_data(job_id, None, planted) is None  # the other host's keep gives it up
        for poll in polls:
            poll.join(60)
    # (a link as this client's protocol version has it: a text block naming the resource)
    links = {answer["result"]["content"][-1]["text"] for answer in answers}
    assert len(answers) == POLLS
    assert len(links) == 1  # one copy, linked by every poll
    assert "Resource 'result.json'" in links.pop()
