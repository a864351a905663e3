"""A server on Redis that is no longer used lets its job store go, and the store's threads end.

The job store's channel watcher (``nanohubmcp-job-channels``) holds the store's callbacks weakly:
once the server is garbage its job store is collected, the watcher ends at its next read of the
channels (each waits at most 1 s) and the runner heartbeat (``nanohubmcp-runner-beat``) at once.
Before, the watcher's thread held the callbacks themselves (bound methods of the job store's
hand-over): a notebook that made a new server on the same Redis kept every earlier server's job
store, its Redis connections and two threads for the life of the kernel; tests/scaleout waited
10 s at the end of every test on Redis for threads that never ended (the suite's slowest
teardowns).

A real server on a real redis-server, served on a loopback port and called over REST.
"""

from __future__ import annotations

import gc
import threading
import weakref

import httpx
import pytest
from paged_lists import paged_server
from redis_server import JOB_STORE_THREADS, RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)


def test_a_server_no_longer_used_lets_its_job_store_and_threads_go(redis_server: RedisServer) -> None:
    before = set(threading.enumerate())
    server = MCPServer("let-go", state_url=redis_server.url)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    with serve(server) as url:
        started = httpx.post(f"{url}tools/work", json={"n": 21}, timeout=10)
        assert started.status_code in (200, 202), started.text
        job_id = started.json()["job_id"]

        def result() -> httpx.Response | None:
            reply = httpx.post(f"{url}tools/get_job_result", json={"job_id": job_id}, timeout=10)
            return reply if reply.json().get("status") == "done" else None

        assert wait_until(result, "the job is done", 20).json()["result"] == 42
    threads = _job_store_threads(before)
    store = weakref.ref(server.core.job_service.jobs)
    del server, work
    _let_go(store, threads, "the job store is still held once its server is gone")


def test_a_server_that_paged_a_list_is_let_go_too(redis_server: RedisServer) -> None:
    """A list paged with a cursor (``tools/list`` at ``list_page_size=2``: the cursor's seal is made from the
    server's ``requestState`` codec) does not hold the server once it is gone. Before, the seal's one-entry cache
    (a module global of ``server.handlers.cursors``) held the codec, its Redis state and through them the whole
    server, its job store and its threads, until another server paged a list."""
    import wire

    before = set(threading.enumerate())
    server = paged_server("paged", state_url=redis_server.url)
    with serve(server) as url:
        started = httpx.post(f"{url}tools/work", json={"n": 21}, timeout=10)  # (a job: the store's threads run)
        assert started.status_code in (200, 202), started.text
        _wait_until_ended(server)  # (a job still running when its server stops holds the server: ci72)
        session = wire.initialize(url + "mcp")
        page = wire.result(url + "mcp", session, "tools/list", {})
        assert "nextCursor" in page, page
        assert wire.result(url + "mcp", session, "tools/list", {"cursor": page["nextCursor"]})["tools"]
    threads = _job_store_threads(before)
    held = weakref.ref(server)
    del server
    _let_go(held, threads, "the server is still held once it is gone")


def test_a_job_that_ends_after_its_server_stopped_lets_the_server_go(redis_server: RedisServer) -> None:
    """A job still running when its server stops (what a loaded host made of the test above in ci72) holds the
    server until it ends, and not longer."""
    before = set(threading.enumerate())
    server = MCPServer("late-job", state_url=redis_server.url)
    release, running = threading.Event(), threading.Event()

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background, once released."""
        running.set()
        release.wait(30)
        return 2 * n

    with serve(server) as url:
        started = httpx.post(f"{url}tools/work", json={"n": 21}, timeout=10)
        assert started.status_code in (200, 202), started.text
        assert running.wait(20), "the job never started"
        threads = _job_store_threads(before)
    release.set()
    _wait_until_ended(server)
    held = weakref.ref(server)
    del server, work
    _let_go(held, threads, "the server is still held once its late job ended")



def _wait_until_ended(server: MCPServer) -> None:
    """Until the server's one job has ended (its record has ``finished_at``)."""
    wait_until(lambda: [r["finished_at"] is not None for r in server.runtime.jobs.listing()] == [True], "the job ends")


def _job_store_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    """The job store's threads started since ``before``: both of them (else the test fails)."""
    threads = [t for t in threading.enumerate() if t not in before and t.name in JOB_STORE_THREADS]
    assert sorted(t.name for t in threads) == sorted(JOB_STORE_THREADS), threads
    return threads


def _let_go(held: weakref.ref[object], threads: list[threading.Thread], still_held: str) -> None:
    """Once the test dropped its server: what ``held`` names is collected within 5 s (else the test fails saying
    ``still_held``) and the job store's ``threads`` end within 5 s each. Not at the first look: the worker thread
    that ran a job still holds the job (its request context, the server) in its frames for a moment after the
    store says the job ended, and those frames are no object the collector can see."""
    wait_until(lambda: gc.collect() >= 0 and held() is None, still_held, 5)
    for thread in threads:
        thread.join(5)
    assert not [t.name for t in threads if t.is_alive()]
