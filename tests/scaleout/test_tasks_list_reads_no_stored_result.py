"""``tasks/list`` on a process that runs none of the session's tasks reads, of their records in Redis, only
what a list entry shows: never a stored result. Two servers in this process share a real redis-server; the
first runs tasks that each keep a 1 MiB result in their record, the second lists them a page at a time.

Each page costs Redis far less than one result (its bytes sent, from Redis's own ``INFO stats``), and the
pages are, byte for byte, what the process running the tasks answers and what their whole records give.
Before, every page read every record of the session whole: past 200 such tasks, 210 MB from Redis a page.

The store's two new reads (the owner's index, the fields of a few records) answer alike on Redis and SQLite.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.handlers.tasks import task_object
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.jobs.job_sessions import keyed
from nanohubmcp.server.jobs.record import owner_key

pytestmark = pytest.mark.timeout(120)
RESULT = 1 << 20
PAGE = 3


def build(state_url: str) -> MCPServer:
    server = MCPServer("task-lists", state_url=state_url, list_page_size=PAGE, max_inline_bytes=None)

    @server.async_tool()
    def big(n: int) -> str:
        """A 1 MiB text, kept whole in the task's record."""
        return str(n % 10) * RESULT

    @server.async_tool()
    def hold(path: str) -> str:
        """Runs until ``path`` exists."""
        wait_until(lambda: os.path.exists(path), "released", 100)
        return "released"

    return server


@contextmanager
def two(state_url: str) -> Iterator[tuple[list[MCPServer], list[str]]]:
    servers = [build(state_url) for _ in range(2)]
    with ExitStack() as stack:
        yield servers, [stack.enter_context(serve(s)) + "mcp" for s in servers]


def task(url: str, session: str, name: str, arguments: dict[str, Any]) -> str:
    created = wire.result(url, session, "tools/call", {"name": name, "arguments": arguments, "task": {"ttl": 60000}})
    return str(created["task"]["taskId"])


def pages(url: str, session: str, sent: redis.Redis) -> tuple[list[dict[str, Any]], list[int]]:
    """Every page of the session's tasks at ``url``, and what Redis sent for each."""
    listed, costs, cursor = [], [], None
    while True:
        before = int(sent.info("stats")["total_net_output_bytes"])
        got = wire.result(url, session, "tasks/list", {} if cursor is None else {"cursor": cursor})
        costs.append(int(sent.info("stats")["total_net_output_bytes"]) - before)
        listed.append(got)
        cursor = got.get("nextCursor")
        if cursor is None:
            return listed, costs


def test_a_page_of_finished_tasks_never_reads_their_results(redis_server: RedisServer, tmp_path: Path) -> None:
    release = tmp_path / "release"
    sent = redis.Redis.from_url(redis_server.url)
    try:
        with two(redis_server.url) as ([first, _], (runs, lists)):
            session, other = wire.initialize(runs), wire.initialize(runs)
            mine = [task(runs, session, "big", {"n": n}) for n in range(4)]
            wire.tool(runs, session, "big", {"n": 9})  # a job, not a task: never listed
            mine += [task(runs, session, "hold", {"path": str(release)})]
            mine += [task(runs, session, "big", {"n": n}) for n in range(4, 7)]
            task(runs, other, "big", {"n": 1})
            wait_until(lambda: [wire.result(runs, session, "tasks/get", {"taskId": t})["status"] for t in mine]
                       == ["completed"] * 4 + ["working"] + ["completed"] * 3, "the big tasks end", 60)

            there, costs = pages(lists, session, sent)
            here, _ = pages(runs, session, sent)
            assert [len(p["tasks"]) for p in there] == [3, 3, 2]
            assert [t["taskId"] for p in there for t in p["tasks"]] == mine
            assert json.dumps(there) == json.dumps(here)  # byte for byte what the running process answers
            records = [first.core.job_service.jobs.backend.load(t) for t in mine]
            whole = [task_object(jobmod.Job.from_record(r)) for r in records if r is not None]
            assert json.dumps([t for p in there for t in p["tasks"]]) == json.dumps(whole)
            assert max(costs) < RESULT // 4, costs  # (before: every page read all eight results, the job's too: 8.4 MB)
    finally:
        release.write_text("go")


@pytest.fixture
def finished(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> tuple[jobmod.JobStore, list[str]]:
    """Four jobs of one session, three finished with a result, stored by the first store."""
    one, two_ = two_job_stores
    jobs = [one.create("tool", "session-a", as_task=n % 2 == 0) for n in range(4)]
    for n, job in enumerate(jobs[:3]):
        job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": str(n) * 1000}]})
    return two_, [job.id for job in jobs]


def test_the_owners_index_and_a_few_fields_read_alike_on_redis_and_sqlite(
        finished: tuple[jobmod.JobStore, list[str]]) -> None:
    from nanohubmcp.server.jobs.pages import SUMMARY  # (here: the first test runs on a version without it)

    reader, ids = finished
    stored = reader.backend
    key = owner_key(keyed("session-a"), None)
    index = stored.owner_index(key, since=float("-inf"), start=0, count=10)
    assert [job_id for job_id, _ in index] == ids
    assert stored.owner_index(key, since=index[1][1], start=1, count=2) == index[2:4]
    rows = stored.summaries([ids[2], "gone", ids[0]], SUMMARY)
    assert [row["id"] for row in rows] == [ids[2], ids[0]]
    for row in rows:
        assert not {"result", "arguments"} & set(row)
        whole = stored.load(row["id"])
        assert whole is not None
        assert whole["result"] is not None
        assert {name: row.get(name) for name in SUMMARY} == {name: whole.get(name) for name in SUMMARY}
