"""Slurm jobs outlive their server, and a job Slurm ends at its time limit fails saying so.

A server running ``job_executor="slurm"`` is killed with SIGKILL while two of alice's jobs run on
the node. One of them finishes while no server runs; the restarted server (same state directory)
collects its result, takes the other back by its Slurm job id and stores its result when it ends:
both reach alice, neither bob, and it completes both jobs' provenance records (naming the node; made
from the job store's records when the killed server had not written them yet, as under CPU load).
The restarted server removes the folder of a job its store does not hold (one whose record
expired while no server ran), never one of a running job, nor a folder that is no job's; once a job's
result is stored, its pickled call and result are gone from its folder (trial 18, F3).
A job that overruns ``time`` ends ``TIMEOUT``: the client's error
names the time limit and carries the tail of the job's stderr. (Slurm's time limits are whole minutes and it
checks them about every 30 s: the test moves the running job's end time to 2 s from now, so Slurm ends it TIMEOUT
at its next check after that, not after a minute and up to 30 s more.)

Issue 25, "Done when": kill -9 of the server while the job runs → restart → the result is
delivered to the job's owner; a ``--time`` overrun gives a clear error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from jobs.job_server import Routes, ServerProcess, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def stored(state: Path, job_id: str) -> tuple[str, int]:
    import sqlite3

    row = (
        sqlite3.connect(state / "jobs.sqlite3")
        .execute("SELECT status, progress_updates FROM jobs WHERE id = ?", (job_id,))
        .fetchone()
    )
    return (row[0], row[1]) if row else ("", 0)


def start(caller: Routes, path: Path) -> tuple[str, str]:
    """Start ``wait_for_file`` over REST: the job's id and its provenance record's URI (the ``Link`` header)."""
    status, headers, body = caller.http("/tools/wait_for_file", {"path": str(path)})
    assert status == 202, body
    link = headers.get("Link") or headers.get("link") or ""
    assert link.startswith("<"), headers
    assert "has_provenance" in link, headers
    return body["job_id"], link[1 : link.index(">")]


def read_record(caller: Routes, session: str, uri: str) -> dict[str, Any] | None:
    reply = caller.rpc(session, "resources/read", {"uri": uri})
    if "result" not in reply:
        return None
    record: dict[str, Any] = json.loads(reply["result"]["contents"][0]["text"])
    return record


def test_jobs_running_at_kill_9_are_collected_and_taken_back_for_their_owner(
    slurm_cluster: str, tmp_path: Path
) -> None:
    state, ends_early, ends_late = tmp_path / "state", tmp_path / "early", tmp_path / "late"
    first = ServerProcess(state, "slurm", auth=True)
    try:
        alice = first.as_caller("token-of-alice")
        early, early_record = start(alice, ends_early)
        late, late_record = start(alice, ends_late)
        for job_id in (early, late):  # progress in the store: the job runs on the node
            wait_until(lambda job_id=job_id: stored(state, job_id)[1] > 0, "the job to run on the node", 90)
    finally:
        first.kill()

    ends_early.write_text("go")  # finishes while no server runs
    folder = state / "slurm-jobs" / early
    wait_until(lambda: list(folder.glob("*_result.pkl")), "the job to write its result", 60)

    # A job folder whose record is gone (it expired while no server ran), as an earlier version left it,
    # and a folder that is no job's.
    orphan = state / "slurm-jobs" / "Ab3dEfGhIjKlMnOpQrStUvWxYz012345"
    orphan.mkdir()
    (orphan / "990_submission.sh").write_text("#!/bin/bash\n")
    (orphan / "990_submitted.pkl").write_bytes(b"a pickled call")
    not_a_job = state / "slurm-jobs" / "notes-of-the-operator"
    not_a_job.mkdir()

    second = ServerProcess(state, "slurm", auth=True)
    try:
        wait_until(lambda: not orphan.exists(), "the folder of no job to go", 30)
        assert not_a_job.is_dir()
        alice, bob = second.as_caller("token-of-alice"), second.as_caller("token-of-bob")
        collected = wait_until(
            lambda: (alice.rest_poll(early)[1] or {}).get("status") == "done" and alice.rest_poll(early)[1],
            "the finished job's result",
            60,
        )
        assert collected["result"]["found"] == str(ends_early)
        assert collected["result"]["pid"] != second.proc.pid
        assert alice.rest_poll(late)[1]["status"] == "running"  # taken back, still on the node
        assert bob.rest_poll(late)[1]["status"] == "not_found"
        ends_late.write_text("go")
        taken_back = wait_until(
            lambda: (alice.rest_poll(late)[1] or {}).get("status") != "running" and alice.rest_poll(late)[1],
            "the running job's result",
            60,
        )
        assert taken_back["status"] == "done", taken_back
        assert taken_back["result"]["found"] == str(ends_late)
        assert bob.rest_poll(early)[1]["status"] == "not_found"
        # Each job's provenance record is completed by the server that collected the job, naming the node.
        session = alice.session()
        for uri in (early_record, late_record):
            record = wait_until(lambda uri=uri: (read_record(alice, session, uri) or {}).get("status") == "completed"
                                and read_record(alice, session, uri), "the job's record to be completed", 30)
            assert record["where"]["node"] == slurm_cluster, record
            assert record["where"]["slurm_job_id"].isdigit(), record
    finally:
        second.stop()
    assert stored(state, early)[0] == stored(state, late)[0] == "completed"
    for job_id in (early, late):  # the result is stored: the pickled call and result are gone, the logs stay
        assert not list((state / "slurm-jobs" / job_id).glob("*.pkl"))
        assert list((state / "slurm-jobs" / job_id).glob("*_0_log.out"))


def stderr_says(jobs: Path, line: str) -> str:
    """The Slurm id of the job whose stderr (``<jobs>/<job>/<slurm id>_0_log.err``) has ``line``, or ""."""
    for log in jobs.glob("*/*_0_log.err"):
        if line in log.read_text(errors="replace"):
            return log.name.split("_", 1)[0]
    return ""


@pytest.mark.timeout(240)
def test_a_job_past_its_time_limit_fails_naming_it_with_its_stderr(slurm_cluster: str, tmp_path: Path) -> None:
    """Once the job runs and wrote its stderr line, ``scontrol update JobId=N EndTime=now+2`` moves its end to 2 s
    from now: its time limit stays 1 min (what the error names), and Slurm itself ends it ``TIMEOUT`` at its next
    look at the limits (every 30 s), as it would a minute later. The wait is a real overrun without a minute's wait
    (Slurm's time limits are whole minutes)."""
    server = MCPServer("slurm-limits", state_dir=str(tmp_path), job_executor="slurm", executor_options={"time": 1})

    @server.async_tool()
    def endless() -> str:
        """Writes to stderr, then runs past any limit."""
        print("solver: iteration 41 of 1000", file=sys.stderr, flush=True)
        time.sleep(600)
        return "never"

    with serve(server) as url:
        from jobs.job_server import Routes

        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("endless", {})[1]["job_id"]
        running = wait_until(lambda: stderr_says(tmp_path / "slurm-jobs", "solver: iteration 41 of 1000"),
                             "the job to run and write its stderr line", 120)
        # (2 s ahead: scontrol reads "now" before its request reaches slurmctld, which refuses an end time already
        # past with "Invalid time specified")
        subprocess.run(["scontrol", "update", f"JobId={running}", "EndTime=now+2"], capture_output=True, text=True,
                       timeout=30, check=True)
        answer = wait_until(
            lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
            "Slurm to end the job",
            120,
        )
    assert answer["status"] == "error", answer
    error = answer["error"]
    assert "reached its time limit (TIMEOUT, time limit 1 min" in error, error
    assert "solver: iteration 41 of 1000" in error.split("stderr ends with:")[1]
    slurm_id = error.split()[2]
    assert slurm_id == running, error
    state = subprocess.run(
        ["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "State,Timelimit"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    assert state[0] == "TIMEOUT|00:01:00", state  # ended by Slurm at its time limit, still the minute asked for
    assert os.path.isdir(tmp_path / "slurm-jobs" / job_id)
