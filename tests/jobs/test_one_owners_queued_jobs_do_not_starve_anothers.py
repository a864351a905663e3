"""One owner's queued jobs do not hold back another's, and a job waiting for a worker says so.

Found by a fresh-user trial (trial 6, F5): bob queued 60 twenty-second jobs over REST; alice's
0.2-second job had not started 90 s later, behind all of bob's in the pool's one
first-in-first-out line, while ``get_job_result`` told her it was "running". Now a freed worker
goes to the first job of the owner holding the fewest workers (``server/jobs/fair.py``): alice's
job starts at the first freed worker, ahead of bob's queue; a job that waits answers
``{"status": "running", "queued": true, "ahead": N}``, and as an MCP task stays ``working`` with
statusMessage ``"queued, N ahead"``. Cancelling a queued task takes it out of the line.

A real server (two job workers) with two principals, called over REST, a 2025-11-25 session and
the 2026 tasks extension.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

from job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}


class Gates:
    """What the tool ``hold(name)`` waits for, and which calls started."""

    def __init__(self) -> None:
        self.open: defaultdict[str, threading.Event] = defaultdict(threading.Event)
        self.started: list[str] = []

    def release_all(self) -> None:
        for name in [*self.open, *(f"b{i}" for i in range(10)), "a1", "t1"]:
            self.open[name].set()


def build(gates: Gates) -> MCPServer:
    server = MCPServer("fair", job_store="memory", job_workers=2, auth=StaticTokenVerifier(TOKENS))

    @server.async_tool()
    def hold(name: str) -> str:
        """Runs until the test opens the gate ``name``."""
        gates.started.append(name)
        gates.open[name].wait(30)
        return name

    return server


def start(caller: Routes, name: str) -> str:
    status, body = caller.rest_start("hold", {"name": name})
    assert status == 202, body
    return str(body["job_id"])


def polled(caller: Routes, job_id: str) -> dict[str, Any]:
    return dict(caller.rest_poll(job_id)[1])


def test_a_newcomers_job_starts_at_the_next_free_worker_and_a_queued_job_says_so() -> None:
    gates = Gates()
    server = build(gates)
    try:
        with serve(server) as url:
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            alice, bob = Routes(port, "token-of-alice"), Routes(port, "token-of-bob")
            bobs = {name: start(bob, name) for name in ("b1", "b2", "b3", "b4", "b5", "b6")}
            wait_until(lambda: sorted(gates.started) == ["b1", "b2"], "two of bob's jobs running")
            assert polled(bob, bobs["b1"]) == {"status": "running", "job_id": bobs["b1"]}
            assert polled(bob, bobs["b3"]) == {"status": "running", "job_id": bobs["b3"], "queued": True, "ahead": 0}
            assert polled(bob, bobs["b6"])["ahead"] == 3

            mine = start(alice, "a1")
            assert polled(alice, mine) == {"status": "running", "job_id": mine, "queued": True, "ahead": 0}
            assert polled(bob, bobs["b3"])["ahead"] == 1  # alice's job goes first
            # As a task (2025-11-25 session of bob's): working, saying where it is in the line.
            session = bob.session()
            created = bob.rpc(session, "tools/call", {"name": "hold", "arguments": {"name": "t1"}, "task": {}})
            task_id = created["result"]["task"]["taskId"]
            got = bob.rpc(session, "tasks/get", {"taskId": task_id})["result"]
            assert (got["status"], got["statusMessage"]) == ("working", "queued, 5 ahead"), got
            modern = alice.modern("tasks/get", {"taskId": mine})["result"]  # the 2026 tasks extension
            assert (modern["status"], modern["statusMessage"]) == ("working", "queued, 0 ahead"), modern
            cancelled = bob.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]
            assert cancelled["status"] == "cancelled", cancelled

            gates.open["b1"].set()  # one worker frees: alice's job takes it, not bob's next
            wait_until(lambda: "a1" in gates.started, "alice's job started")
            assert gates.started[2:] == ["a1"]
            assert "queued" not in polled(alice, mine)
            assert polled(bob, bobs["b3"])["ahead"] == 0

            gates.release_all()
            for caller, job_id in [(alice, mine), *((bob, j) for j in bobs.values())]:
                wait_until(lambda c=caller, j=job_id: polled(c, j)["status"] == "done", "every job done")
            assert sorted(gates.started) == ["a1", "b1", "b2", "b3", "b4", "b5", "b6"]  # never the cancelled task
    finally:
        gates.release_all()
