"""The job store is made at its first use, but a store an earlier process left on disk is opened
when serving starts: its unfinished jobs are settled then (here: failed, "the server stopped while
this job ran"), not at the first job call. A server whose state directory holds no job store
opens none (and writes no file) by serving.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from job_server import ServerProcess, wait_until

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"


def stored(state: Path, job_id: str) -> tuple[str, str | None]:
    """(status, status message) of ``job_id`` as the SQLite file holds it, read by this process."""
    db = sqlite3.connect(state / "jobs.sqlite3")
    try:
        row = db.execute("SELECT status, status_message FROM jobs WHERE id = ?", (job_id,)).fetchone()
    finally:
        db.close()
    assert row is not None, job_id
    return row[0], row[1]


def test_a_store_left_by_a_killed_process_is_settled_before_any_job_call(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state)
    try:
        status, body = first.rest_start("wait_for_file", {"path": str(tmp_path / "never-created")})
        assert status == 202, body
        running = body["job_id"]
        wait_until(lambda: first.rest_poll(running)[1]["status"] == "running", "the running job")
    finally:
        first.kill()
    assert stored(state, running)[0] == "working"  # nobody settled it: the process died

    second = ServerProcess(state)  # no request of any kind reaches it
    try:
        wait_until(lambda: stored(state, running) == ("failed", STOPPED), "the job settled at start")
    finally:
        second.stop()


def test_serving_without_a_stored_job_opens_no_store(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = ServerProcess(state)
    try:
        session = server.session()  # a first answer, and a request in a session
        # (its id is the module's next one, whatever earlier tests in this worker sent: ci74 saw 3)
        assert server.rpc(session, "ping", {})["result"] == {}
        assert not (state / "jobs.sqlite3").exists()
    finally:
        server.stop()
