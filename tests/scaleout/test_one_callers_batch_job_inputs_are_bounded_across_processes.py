"""The per-caller budget of waiting batch jobs' inputs (``max_kept_bytes_per_owner``) holds across the processes of a
server sharing a Redis: alice's jobs on one process count when she starts one on another.

Each process counted the jobs it started (or took back): N processes let one caller keep N budgets of inputs in
``job_dir``, the quota they share. The charges now live in Redis (``fb:<owner>``, one field per job, a lease renewed
by the process holding the job): a job refused on the second process, taken there once her jobs on the first ended.
A charge whose lease ended (its process died) counts no more. With the stand-in ``submit``, two servers in this
process, each its own state directory, one Redis.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import redis
from hpc.held_submit import add_held
from jobs.job_server import TOKENS, Routes
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(120)

NAME = "shared-folder-budget"
BUDGET = 4000
DATA = "d" * 1500
"""About 1,530 bytes of arguments (pickled, with `go`): two such jobs fit in :data:`BUDGET`, a third does not."""
STANDIN = Path(__file__).resolve().parents[1] / "hpc" / "standin"


@pytest.fixture
def standin_submit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stand-in ``submit`` first on PATH (tests/hpc/standin)."""
    log_dir = tmp_path / "submit-invocations"
    log_dir.mkdir()
    monkeypatch.setenv("PATH", f"{STANDIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("SUBMIT_STANDIN_LOG", str(log_dir))


def build(state_url: str, state_dir: Path) -> MCPServer:
    server = MCPServer(NAME, state_url=state_url, state_dir=str(state_dir), job_executor="submit",
                       executor_options={"local": True}, max_kept_bytes_per_owner=BUDGET,
                       auth=StaticTokenVerifier(TOKENS))

    add_held(server)

    return server


def two_servers(stack: ExitStack, redis_url: str, tmp_path: Path) -> Iterator[int]:
    for name in ("first", "second"):
        url = stack.enter_context(serve(build(redis_url, tmp_path / name)))
        yield int(url.rsplit(":", 1)[1].strip("/"))


@pytest.mark.usefixtures("standin_submit")
def test_a_callers_jobs_on_one_process_count_on_another(redis_server: RedisServer, tmp_path: Path) -> None:
    go = tmp_path / "go"
    args = {"data": DATA, "go": str(go)}
    with ExitStack() as stack:
        first, second = two_servers(stack, redis_server.url, tmp_path)
        alice = Routes(first, "token-of-alice")
        started = [alice.rest_start("held", args) for _ in range(2)]
        assert [status for status, _ in started] == [202, 202], started

        status, body = Routes(second, "token-of-alice").rest_start("held", args)
        assert status == 429, body
        assert "at most 4000 bytes of waiting jobs' inputs per caller" in str(body), body
        assert not (tmp_path / "second" / "submit-jobs").exists() or \
            not list((tmp_path / "second" / "submit-jobs").iterdir())  # the refused call made no job

        status, body = Routes(second, "token-of-bob").rest_start("held", args)  # another caller's own budget
        assert status == 202, body

        go.write_text("go")
        for _, handle in started:
            wait_until(lambda job=handle["job_id"]: alice.rest_poll(job)[1].get("status") == "done",
                       "alice's job to end", 60)
        status, body = Routes(second, "token-of-alice").rest_start("held", args)  # her jobs ended: room again
        assert status == 202, body


@pytest.mark.usefixtures("standin_submit")
def test_a_charge_whose_lease_ended_counts_no_more(redis_server: RedisServer, tmp_path: Path) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    args = {"data": DATA, "go": str(tmp_path / "go")}
    with ExitStack() as stack:
        first, second = two_servers(stack, redis_server.url, tmp_path)
        status, body = Routes(first, "token-of-alice").rest_start("held", args)
        assert status == 202, body
        charges = admin.keys(f"nanohubmcp:{NAME}:fb:*")
        assert len(charges) == 1, charges
        size, _lease_end = admin.hget(charges[0], body["job_id"]).split()
        assert int(size) > len(DATA)
        # A process that died holding her budget: its charge's lease ended long ago.
        admin.hset(charges[0], "job-of-a-dead-process", f"{BUDGET} 1")
        status, body = Routes(second, "token-of-alice").rest_start("held", args)
        assert status == 202, body
        assert not admin.hexists(charges[0], "job-of-a-dead-process")
        assert 0 < admin.ttl(charges[0]) <= 300
        (tmp_path / "go").write_text("go")
