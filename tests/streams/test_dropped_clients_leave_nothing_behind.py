"""A client that disconnects mid-stream leaves no thread, task, session, stream or memory behind.

Three kinds of drop, 200 connect/disconnect cycles each, after a warm-up that brings pools and
caches to their steady size:

- GET streams opened and dropped (the same session again and again — each new GET must be
  accepted, so the server noticed the drop — and fresh sessions that are then deleted);
- POST calls answered as SSE, dropped after the first event while the tool still runs;
- legacy ``GET /sse`` streams opened and dropped (each one is a session that must end).

Before and after, the test counts threads, asyncio tasks on the server loop
(``server.core.loop``), sessions and their streams, traced Python memory (``tracemalloc``) and
the process RSS. Growth must stay bounded: no per-cycle residue. Threads are those this test's server (and its
stream readers) started, each kind as many as before, but the worker pool's lanes, which may grow to their
bounds (flaky43: the quick lane's two threads, started only when the main lane is full, were first started
during the cycles on a loaded host; and another test's threads ending meanwhile were counted).

Issue 3, "Done when": counted before and after 200 connect/disconnect cycles.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from stream_wire import Wire
from support import serve, wait_until_answered

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.calls.workers import QUICK_WORKERS
from nanohubmcp.server.wire.sessions import MAX_STREAMS

CYCLES = 200
WARM_UP = 40
PARALLEL = 8
MAX_TRACED_GROWTH = 1_500_000  # bytes, for 600 cycles (a leaked handler per cycle would be far more)
RETAINED_STREAM_BYTES = 64 * 1024
"""What one more resumable stream kept by the calls' session may hold (its event log; at most
MAX_STREAMS are kept, a bound, not residue): how many are kept when measured depends on timing, so
a loaded host kept more at the end than at the start (2.55 MB against the bare 1.5 MB, seen once)."""
MAX_RSS_GROWTH = 24 * 1024 * 1024
# An idle threaded server loop runs two tasks while it is measured: the runner's main coroutine and
# the measuring coroutine itself. A handler still winding down after a drop is a third, for a moment.
IDLE_TASKS = 2
MAIN, QUICK = "nanohubmcp-worker-main", "nanohubmcp-worker-quick"
"""The worker pool's threads, by lane (:class:`~nanohubmcp.server.calls.workers.WorkerPool`)."""


def build() -> MCPServer:
    # Records are kept by design (bounded, TTL), and spans by whatever exporter the process set up (the
    # tracing tests keep every span in memory when they ran first): neither is residue of a connection.
    server = MCPServer("drops", workers=8, provenance=False, tracing=False)

    @server.tool()
    def talk_slowly(ctx: Context) -> str:
        """Log, pause (the client drops here), log again and answer."""
        ctx.info("started")
        time.sleep(0.05)
        ctx.info("halfway")
        return "finished"

    return server


@dataclass
class Counts:
    threads: dict[str, int]
    tasks: int
    sessions: int
    streams: int
    in_flight: int
    traced: int
    rss: int

    def __str__(self) -> str:
        return (f"threads={self.threads} tasks={self.tasks} sessions={self.sessions} streams={self.streams} "
                f"in_flight={self.in_flight} traced={self.traced / 1e6:.2f}MB rss={self.rss / 1e6:.1f}MB")


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class ThreadKinds:
    """Counts the live threads of the server and of this test's stream readers started since it was made, by name
    without the number. Threads alive before are not counted: another test run earlier in this process may have
    left some winding down (a ``nanohubmcp-worker-quick`` thread of its server, seen in CI), which end whenever
    they end; a thread this server starts and keeps is counted. (Threads of other kinds, e.g. anyio's idle
    workers, may come and go meanwhile.)"""

    def __init__(self) -> None:
        self.earlier = set(threading.enumerate())

    def __call__(self) -> dict[str, int]:
        kinds: dict[str, int] = {}
        for thread in threading.enumerate():
            kind = thread.name.rstrip("0123456789_-")
            if thread not in self.earlier and (kind.startswith("nanohubmcp") or kind == "test-sse-reader"):
                kinds[kind] = kinds.get(kind, 0) + 1
        return kinds


def others(kinds: dict[str, int]) -> dict[str, int]:
    """``kinds`` but the worker pool's lanes."""
    return {kind: count for kind, count in kinds.items() if kind not in (MAIN, QUICK)}


def measure(server: MCPServer, thread_kinds: ThreadKinds) -> Counts:
    core = server.core
    assert core.loop is not None

    async def on_loop() -> tuple[int, int, int, int]:
        await asyncio.sleep(0)
        sessions = core.sessions.all()
        return (len(asyncio.all_tasks()), len(sessions), sum(len(s.streams) for s in sessions),
                sum(len(s.in_flight) for s in sessions))

    tasks, sessions, streams, in_flight = asyncio.run_coroutine_threadsafe(on_loop(), core.loop).result(10)
    gc.collect()
    return Counts(thread_kinds(), tasks, sessions, streams, in_flight, tracemalloc.get_traced_memory()[0],
                  rss_bytes())


def settle(server: MCPServer, thread_kinds: ThreadKinds, ready: Callable[[Counts], bool],
           timeout: float = 15.0) -> Counts:
    """Measure until ``ready`` holds (the server finished noticing drops), bounded."""
    deadline = time.monotonic() + timeout
    while True:
        counts = measure(server, thread_kinds)
        if ready(counts) or time.monotonic() > deadline:
            return counts
        time.sleep(0.05)


# -- the three kinds of cycle ---------------------------------------------------------------
def drop_get_stream(wire: Wire, session: str) -> None:
    """Open the session's GET stream, read the priming event, drop it; retry while it is still busy."""
    deadline = time.monotonic() + 5
    while True:
        events = wire.start("GET", "/mcp", None, {"Accept": "text/event-stream", "Mcp-Session-Id": session,
                                                  "MCP-Protocol-Version": "2025-11-25"})
        status = events.wait_head()
        if status == 200:
            assert events.next() is not None
            events.close()
            return
        events.close()
        assert status == 409, status
        assert time.monotonic() < deadline, "the server never noticed the dropped GET stream (409 for 5 s)"
        time.sleep(0.005)


def drop_get_stream_of_a_fresh_session(wire: Wire) -> None:
    session = wire.initialize()
    drop_get_stream(wire, session)
    assert wire.delete(session).status == 204


def drop_call_midway(wire: Wire, session: str) -> None:
    _, events = wire.stream_call("tools/call", {"name": "talk_slowly", "arguments": {}}, session)
    assert events.wait_head() == 200
    assert events.is_sse
    first = events.next_message()
    assert first is not None
    assert first["params"]["data"] == "started"
    events.close()


def drop_legacy_stream(wire: Wire) -> None:
    events, endpoint = wire.legacy()
    assert "session_id=" in endpoint
    events.close()


def run_cycles(wire: Wire, count: int, calls_session: str, get_session: str) -> None:
    for _ in range(count):
        drop_get_stream(wire, get_session)
    for _ in range(count // 4):
        drop_get_stream_of_a_fresh_session(wire)
    with ThreadPoolExecutor(PARALLEL) as pool:
        list(pool.map(lambda _: drop_call_midway(wire, calls_session), range(count)))
        list(pool.map(lambda _: drop_legacy_stream(wire), range(count)))


@pytest.mark.timeout(300)
def test_two_hundred_dropped_connections_of_each_kind_leave_no_residue() -> None:
    thread_kinds = ThreadKinds()
    server = build()
    tracemalloc.start()
    try:
        with serve(server) as url:
            wire = Wire(url)
            calls_session = wire.initialize(log_level="info")
            get_session = wire.initialize()

            readers = thread_kinds().get("test-sse-reader", 0)

            def quiet(counts: Counts) -> bool:
                return (counts.sessions == 2 and counts.in_flight == 0 and counts.tasks <= IDLE_TASKS
                        and counts.threads.get("test-sse-reader", 0) <= readers)

            run_cycles(wire, WARM_UP, calls_session, get_session)
            before = settle(server, thread_kinds, quiet)
            snapshot = tracemalloc.take_snapshot()
            assert quiet(before), f"warm-up did not settle: {before}"
            run_cycles(wire, CYCLES, calls_session, get_session)
            after = settle(server, thread_kinds, quiet)
            print(f"\nbefore: {before}\nafter:  {after}")

            assert after.sessions == 2, f"sessions left behind: {after}"
            assert after.in_flight == 0, f"calls still in flight: {after}"
            # The worker pool starts a thread when a call finds none idle, up to its bound, and keeps it: its
            # quick lane's are started only when its main lane is full, which a loaded host meets first during
            # the cycles, not the warm-up (seen: 2 more quick-lane threads after than before). Within the
            # bounds, that is the pool's size, not residue; every other kind of thread must be as before.
            assert after.threads.get(MAIN, 0) <= server.core.workers, f"threads: {after.threads}"
            assert after.threads.get(QUICK, 0) <= QUICK_WORKERS, f"threads: {after.threads}"
            assert others(after.threads) == others(before.threads), f"threads: {before.threads} -> {after.threads}"
            assert after.tasks <= before.tasks <= IDLE_TASKS, f"asyncio tasks: {before.tasks} -> {after.tasks}"
            # The calls' session keeps at most MAX_STREAMS resumable streams; the GET session one.
            assert after.streams <= MAX_STREAMS + 1, f"streams: {before.streams} -> {after.streams}"
            allowed = MAX_TRACED_GROWTH + max(0, after.streams - before.streams) * RETAINED_STREAM_BYTES
            if after.traced - before.traced >= allowed:
                grown = tracemalloc.take_snapshot().compare_to(snapshot, "lineno")[:10]
                raise AssertionError(f"traced memory grew by {(after.traced - before.traced) / 1e6:.2f} MB "
                                     f"(allowed {allowed / 1e6:.2f} MB); most grown:\n" + "\n".join(map(str, grown)))
            rss_growth = after.rss - before.rss
            assert rss_growth < MAX_RSS_GROWTH, f"RSS grew by {rss_growth / 1e6:.1f} MB"

            # Nothing is broken afterwards: both sessions still answer.
            assert wire.request("ping", {}, calls_session)["result"] == {}
            drop_get_stream(wire, get_session)
    finally:
        tracemalloc.stop()


def test_threads_alive_before_are_not_counted_and_new_ones_are() -> None:
    """Another test's thread ending meanwhile changes no count (it failed the test above in CI); a thread started
    afterwards is counted, so a server that leaks threads still fails it."""
    ended = threading.Event()
    earlier = threading.Thread(target=ended.wait, name="nanohubmcp-worker-quick-7", daemon=True)
    earlier.start()
    try:
        thread_kinds = ThreadKinds()
        before = thread_kinds()
    finally:
        ended.set()
        earlier.join(10)
    assert thread_kinds() == before
    stays = threading.Event()
    later = threading.Thread(target=stays.wait, name="nanohubmcp-worker-quick-8", daemon=True)
    later.start()
    try:
        assert thread_kinds() == {**before, "nanohubmcp-worker-quick": before.get("nanohubmcp-worker-quick", 0) + 1}
    finally:
        stays.set()
        later.join(10)


def test_a_dropped_call_still_finishes_and_its_result_waits_for_a_resuming_client() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize(log_level="info")
        call_id, events = wire.stream_call("tools/call", {"name": "talk_slowly", "arguments": {}}, session)
        primed = events.next()
        assert primed is not None
        assert primed.data == ""
        assert primed.id
        first = events.next()
        assert first is not None
        assert first.json["params"]["data"] == "started"
        events.close()
        wait_until_answered(server, session, first.id)  # the tool finishes while nobody listens
        resumed = wire.listen(session, last_event_id=first.id)
        try:
            before, final = resumed.until(lambda m: m.get("id") == call_id)
            assert [m["params"]["data"] for m in before] == ["halfway"]
            assert final["result"]["content"][0]["text"] == "finished"
            assert resumed.ended.wait(5), "a resumed call stream ends after its response"
        finally:
            resumed.close()
        record: Any = server.core.sessions.get(session)
        assert not record.in_flight
