"""trial53/trial54 F1: a stop with one job its client cancelled whose function still runs and one other job
said ``waiting for 1 running tool call(s) and 1 running job(s)`` and then ``2 tool call(s) still running; exiting
without them``: no tool call ran. Both lines now count by one rule (``process_exit.count_running``): a job's
function is a job, cancelled by its client or not, and the closing line names the calls and the jobs apart as
the first one does (``2 running job(s)`` ... ``2 job(s) still running``).

A real ``nanohubmcp run`` process with a short ``--exit-grace``, so that the closing line comes; every wait is
for a condition."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import httpx
import pytest
from stop_lines_app import stop_lines_app
from support import ScriptServer, app_server, wait_until

pytestmark = pytest.mark.timeout(120)


def _start_job(url: str, tag: str) -> str:
    handle = httpx.post(f"{url}tools/stubborn", json={"seconds": 60, "tag": tag}, timeout=60)
    assert handle.status_code in (200, 202), handle.text
    body = handle.json()
    job_id = body.get("job_id") or body.get("result", {}).get("job_id")
    assert job_id, body
    return str(job_id)


def _cancelled_job_running(served: ScriptServer) -> None:
    """Start the job ``a`` and, once it runs, cancel it (it runs on: its function does not look)."""
    cancelled = _start_job(served.url, "a")
    wait_until(lambda: "job a: running" in served.output, "the job a to run")
    told = httpx.post(f"{served.url}tools/cancel_job", json={"job_id": cancelled}, timeout=60)
    assert told.status_code == 200, told.text
    assert "cancelled" in told.text, told.text


def _stop(served: ScriptServer) -> str:
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(60) == 0
    return served.output


def _lines(said: str) -> tuple[str, str]:
    first = [line for line in said.splitlines() if "stopped; waiting for" in line]
    closing = [line for line in said.splitlines() if "still running; exiting without them" in line]
    assert len(first) == 1, said
    assert len(closing) == 1, said
    return first[0], closing[0]


def test_a_cancelled_job_still_running_and_another_job_are_two_jobs_in_both_lines(tmp_path: Path) -> None:
    with app_server(stop_lines_app(tmp_path), "--exit-grace", "3", log=tmp_path / "server.log") as served:
        _cancelled_job_running(served)
        _start_job(served.url, "b")
        wait_until(lambda: "job b: running" in served.output, "the second job to run")
        said = _stop(served)
    first, closing = _lines(said)
    assert "waiting for 2 running job(s) to return" in first, said
    assert "tool call(s)" not in first, said
    assert "2 job(s) still running; exiting without them (within 3 s of the stop)" in closing, said
    assert "tool call(s)" not in closing, said
    assert "Traceback" not in said, said


def test_a_call_and_a_cancelled_job_are_named_apart_in_both_lines(tmp_path: Path) -> None:
    with app_server(stop_lines_app(tmp_path), "--exit-grace", "3", log=tmp_path / "server.log") as served:
        _cancelled_job_running(served)
        caller = threading.Thread(
            target=lambda: httpx.post(f"{served.url}tools/slow", json={"seconds": 60}, timeout=60), daemon=True)
        caller.start()
        wait_until(lambda: "slow: running" in served.output, "the call to run")
        said = _stop(served)
    first, closing = _lines(said)
    assert "waiting for 1 running tool call(s) and 1 running job(s) to return" in first, said
    assert "1 tool call(s) and 1 job(s) still running; exiting without them (within 3 s of the stop)" in closing, said
    assert "Traceback" not in said, said
