"""Servers that share only a state directory (its SQLite job store, no Redis): a job cancelled
through one of them is stopped by the one running it, as a cancel it received itself would stop it —
``ctx.is_cancelled()`` turns true in a thread job; a ``processes`` job's process, with the program it
started, is ended — and every server answers ``cancelled``.

Before, the cancel was stored and final, but the running process was never told: the job ran to its
end, its result dropped. Two real server processes (``job_server.py``) on one state directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import support
from job_server import ServerProcess, wait_until

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """``(running, other)``: two server processes sharing ``tmp_path/state``."""
    state = tmp_path / "state"
    running = ServerProcess(state)
    try:
        other = ServerProcess(state)
        try:
            yield running, other
        finally:
            other.stop()
    finally:
        running.stop()


def cancel_elsewhere(other: ServerProcess, job_id: str) -> None:
    status, _, answer = other.http("/tools/cancel_job", {"job_id": job_id})
    assert (status, answer["status"]) == (200, "cancelled"), answer


def test_a_thread_jobs_function_sees_the_cancel(servers: tuple[ServerProcess, ServerProcess], tmp_path: Path) -> None:
    running, other = servers
    status, handle = running.rest_start("until_cancelled", {"folder": str(tmp_path)})
    assert status == 202, handle
    wait_until((tmp_path / "started").exists, "the job started")
    cancel_elsewhere(other, handle["job_id"])
    wait_until((tmp_path / "cancelled").exists, "the function saw the cancel", timeout=15)
    for server in (running, other):
        assert server.rest_poll(handle["job_id"])[1]["status"] == "cancelled"


def test_a_process_jobs_process_and_its_program_are_ended(
        servers: tuple[ServerProcess, ServerProcess], tmp_path: Path) -> None:
    running, other = servers
    marker = tmp_path / "program.pid"
    status, handle = running.rest_start("run_a_program", {"marker": str(marker)})
    assert status == 202, handle
    pid = int(wait_until(lambda: marker.exists() and marker.read_text(), "the program started"))
    cancel_elsewhere(other, handle["job_id"])
    wait_until(lambda: not support.running(pid), "the job's program ended", timeout=15)
    for server in (running, other):
        assert server.rest_poll(handle["job_id"])[1]["status"] == "cancelled"
