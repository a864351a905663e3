"""A done job's data over ``max_inline_bytes`` is kept once for every process of a server: the link its MCP
answers give (``get_job_result``, ``tasks/result``, ``tasks/get``) is stored with the job's record, so a process
that did not keep it answers the same URI; of two processes keeping it at the same moment, the first to reserve
the record writes the one copy, and the other answers its link. With an owner's share holding one copy, the loser
must not leave both answering an evicted link (review r24 MED-2): a keep that finds the winner's stored once its
value is made writes nothing. (Two keeps meeting at the record, and a stale reservation:
``test_a_jobs_kept_data_is_written_by_the_process_that_reserved_it``.)

Before: each process remembered the links it kept in its own memory: with ``--workers 2`` each worker polling
a job kept a copy of its own (two files, two URIs for one job).

Two job stores on one real redis-server, and on one SQLite state directory, stand for two processes (each
with its own result store over one results folder); then two real workers of ``nanohubmcp run --workers 2``
sharing a real redis-server, polled at once through connections that reached each, then read through each by
a new session once the job's session ended.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import itertools
import json
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
import pytest
import wire
from cluster import Server, listeners, processes_with
from redis_server import RedisServer, free_port
from support import wait_until

from nanohubmcp.server.executors.polled_data import PolledData, job_owner
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.results.folder import LOCK_NAME
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.store import ResultStore

pytestmark = pytest.mark.timeout(120)

DATA = {"y": list(range(18_000))}  # ~100 KB of JSON
APP = '''
import os

from nanohubmcp import MCPServer

server = MCPServer("kept-once", max_inline_bytes=4096)


@server.tool()
def where() -> dict:
    """The process serving this call."""
    return {"pid": os.getpid()}


@server.async_tool()
def big() -> dict:
    """About 100 KB of data."""
    return {"y": list(range(18_000))}
'''


def kept_files(state: Path) -> list[Path]:
    """The kept results under ``state`` (each has its ``.meta.json`` beside it)."""
    return sorted(state.rglob("*.meta.json"))


def test_two_processes_keeping_a_jobs_data_at_once_answer_one_copy(
        two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], tmp_path: Path) -> None:
    first, second = two_job_stores
    state = tmp_path / "kept"
    options = ResultOptions(max_inline_bytes=4096)
    here, there = (PolledData(ResultStore(600.0, directory=lambda: str(state)), options, lambda s=s: s.backend)
                   for s in (first, second))
    job = first.create("big", "session-key")
    job.finish(jobmod.COMPLETED, result={"content": []})
    answered: dict[str, Any] = {}
    there_done = threading.Event()

    def late_value() -> Any:  # this process makes its copy only once the other's keep was stored
        assert there_done.wait(60)
        return DATA

    late = threading.Thread(target=lambda: answered.update(here=here.kept(job, late_value)))
    late.start()
    answered["there"] = there.kept(job, lambda: DATA)
    there_done.set()
    late.join(60)
    assert answered["here"] == answered["there"] is not None  # the copy stored first, answered by both
    assert len(kept_files(state)) == 1  # the other copy dropped
    again = PolledData(ResultStore(600.0, directory=lambda: str(state)), options, lambda: second.backend)
    assert again.kept(job, lambda: pytest.fail("kept again")) == answered["there"]  # read from the record


def _reads(store: ResultStore, blocks: list[dict[str, Any]] | None, owner: str | None) -> bool:
    return blocks is not None and store.read(blocks[1]["uri"], owner) is not None


def test_a_keep_that_finds_the_others_once_its_value_is_made_evicts_nothing(
        two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], tmp_path: Path) -> None:
    first, second = two_job_stores
    state = tmp_path / "kept"
    options = ResultOptions(max_inline_bytes=4096)
    stores = [ResultStore(600.0, directory=lambda: str(state), max_bytes_per_owner=150_000) for _ in range(2)]
    pairs = zip(stores, (first, second), strict=True)
    here, there = (PolledData(st, options, lambda s=s: s.backend) for st, s in pairs)
    job = first.create("big", "session-key")
    job.finish(jobmod.COMPLETED, result={"content": []})
    answered: dict[str, Any] = {}
    there_done = threading.Event()

    def late_value() -> Any:
        assert there_done.wait(60)
        return DATA

    late = threading.Thread(target=lambda: answered.update(here=here.kept(job, late_value)))
    late.start()
    answered["there"] = there.kept(job, lambda: DATA)
    there_done.set()
    late.join(60)
    owner = job_owner(job)
    assert answered["here"] == answered["there"]
    assert _reads(stores[0], answered["here"], owner)  # before: evicted by the loser's copy, on both
    assert _reads(stores[1], answered["there"], owner)
    assert len(kept_files(state)) == 1


_IDS = itertools.count(1)


def _post(conn: http.client.HTTPConnection, session: str, method: str, params: dict[str, Any]) -> Any:
    """One request on ``conn`` (kept open: it stays with the worker it reached); its result."""
    body = {"jsonrpc": "2.0", "id": next(_IDS), "method": method, "params": params}  # (at once: ids of their own)
    conn.request("POST", "/mcp", json.dumps(body), {**wire.headers(session), "Accept": "application/json",
                                                    "Content-Type": "application/json"})
    reply = conn.getresponse()
    answer = json.loads(reply.read())
    assert reply.status == 200, answer
    return answer["result"]


def _connections(port: int, session: str, count: int) -> list[tuple[int, http.client.HTTPConnection]]:
    """``count`` connections opened at once to the server on ``port``, each with the pid of the worker it reached."""
    pool = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for _ in range(count)]
    for conn in pool:
        conn.connect()
    where = {"name": "where", "arguments": {}}
    return [(json.loads(_post(conn, session, "tools/call", where)["content"][0]["text"])["pid"], conn) for conn in pool]


def test_two_workers_polling_one_job_at_once_answer_one_uri(redis_server: RedisServer, tmp_path: Path) -> None:
    app = tmp_path / "kept_once_app.py"
    app.write_text(APP)
    state = tmp_path / "state"
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(state), "MCP_TOKEN": ""}
    server = Server(tmp_path, free_port(), redis_server.url, workers=2, env=env, app=app)
    reached: list[tuple[int, http.client.HTTPConnection]] = []
    try:
        server.wait_listening()
        wait_until(lambda: len(processes_with(1, server.proc.pid)) == 2 and listeners(server.port) == 2,
                   "both workers to listen", 30)
        session = wire.initialize(server.url)
        job_id = json.loads(wire.tool(server.url, session, "big", {})["result"]["content"][0]["text"])["job_id"]
        wait_until(lambda: wire.call(server.url, session, "tasks/get", {"taskId": job_id}).json()["result"]["status"]
                   == "completed", "the job to end (read without polling it: a poll keeps its data)", 30)
        reached = _connections(server.port, session, 16)
        assert len({pid for pid, _ in reached}) == 2, "the connections reached one worker only"
        poll = {"name": "get_job_result", "arguments": {"job_id": job_id}}
        with ThreadPoolExecutor(len(reached)) as pool:  # each worker's first polls, at once
            polls = list(pool.map(lambda item: _post(item[1], session, "tools/call", poll), reached))
        uris = {result["content"][-1]["uri"] for result in polls}
        assert len(uris) == 1, uris  # one URI, whichever worker answered
        assert len(kept_files(state)) == 1  # one copy kept
        uri = uris.pop()
        for pid in {pid for pid, _ in reached}:  # read back through each worker
            conn = next(conn for p, conn in reached if p == pid)
            read = _post(conn, session, "resources/read", {"uri": uri})
            assert json.loads(read["contents"][0]["text"]) == DATA
        # The job's session ended (a DELETE): a new session, on either worker, reads the job by its id and so its
        # link (before: "Resource not found", the kept data being the ended session's; trial46 T46-5).
        assert httpx.delete(server.url, headers=wire.headers(session), timeout=30).status_code in (200, 204)
        reconnected = wire.initialize(server.url)
        for pid in {pid for pid, _ in reached}:
            conn = next(conn for p, conn in reached if p == pid)
            read = _post(conn, reconnected, "resources/read", {"uri": uri})
            assert json.loads(read["contents"][0]["text"]) == DATA, pid
    finally:
        for _, conn in reached:
            conn.close()
        server.stop()


@contextlib.contextmanager
def _folder_locked(state: Path) -> Iterator[None]:
    """The results folder's lock held, as by another process keeping a result (a ``flock`` of another open file)."""
    with open(state / "results" / LOCK_NAME, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def test_a_copy_kept_in_memory_is_not_stored_for_the_other_processes(
        two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], tmp_path: Path) -> None:
    first, _ = two_job_stores
    state = tmp_path / "kept"
    store = ResultStore(600.0, directory=lambda: str(state))
    store.lock_wait_seconds = 0.2
    here = PolledData(store, ResultOptions(max_inline_bytes=4096), lambda: first.backend)
    job = first.create("big", "session-key")
    job.finish(jobmod.COMPLETED, result={"content": []})
    assert not store.holds("nanohubmcp://results/none.json", None)  # (the folder made)
    with _folder_locked(state):
        answered = here.kept(job, lambda: DATA)
    assert _reads(store, answered, job_owner(job))  # this process answers its memory copy
    assert first.backend.summaries([job.id], ("id", "kept_data"))[0].get("kept_data") is None  # before: its URI


def test_a_copy_is_dropped_only_holding_the_folders_lock(tmp_path: Path) -> None:
    state = tmp_path / "kept"
    store = ResultStore(600.0, directory=lambda: str(state))
    store.lock_wait_seconds = 0.2
    uri = store.keep("x" * 10, "text/plain", ".txt", None)
    assert store.shared(uri)
    with _folder_locked(state):
        store.drop(uri)
    assert store.read(uri, None) is not None  # before: its file removed without the lock
    store.drop(uri)
    assert store.read(uri, None) is None
