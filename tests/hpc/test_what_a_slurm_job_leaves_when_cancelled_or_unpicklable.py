"""Two ends of a Slurm job on the real single-node Slurm (scripts/slurm-single-node).

A job cancelled while it runs (``cancel_job``) may still write its pickled result: submitit lets
the function end after scancel's SIGTERM, and a tool that checks ``ctx.is_cancelled()`` returns
then, after the job's ``cancelled`` end was stored and its run files removed. That late
``<slurm id>_0_result.pkl`` is removed too, once Slurm says the job ended (hpc-jobs.md, "What stays
in the job folders"). Trial28 T2: it stayed until the folder expired.

A tool that returns a value pickle cannot take (a lock) fails saying so, quoting pickle's message,
and what to return instead. Trial28 T9: "failed (FAILED) before the tool returned".
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import cloudpickle
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import Context, MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def stops_when_cancelled(marker: str, ctx: Context) -> dict:
    """Write this job's Slurm id to ``marker``, run until cancelled (at most a minute), then return."""
    Path(marker).write_text(os.environ.get("SLURM_JOB_ID", "?"))
    deadline = time.monotonic() + 60
    while not ctx.is_cancelled() and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"cancelled": ctx.is_cancelled()}


def lock() -> object:
    """Returns what pickle refuses."""
    return threading.Lock()


def gone_from_slurm(slurm_id: str) -> bool:
    """Slurm says the job ended and its processes are gone (not RUNNING, not COMPLETING)."""
    state = subprocess.run(["squeue", "-h", "--states=all", "-j", slurm_id, "-o", "%T"],
                           capture_output=True, text=True, timeout=30, check=False).stdout.strip()
    return state in ("", "CANCELLED")


def test_a_cancelled_jobs_late_result_is_removed_once_the_job_ended(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-cancel-files", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool()(stops_when_cancelled)
    marker = tmp_path / "started"
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("stops_when_cancelled", {"marker": str(marker)})[1]["job_id"]
        folder = tmp_path / "slurm-jobs" / job_id
        slurm_id = wait_until(lambda: marker.exists() and marker.read_text(), "the job to start on the node", 90)
        assert list(folder.glob("*_submitted.pkl"))  # while it runs, its call stays
        cancelled = routes.http("/tools/cancel_job", {"job_id": job_id})[2]
        assert cancelled["status"] == "cancelled", cancelled
        wait_until(lambda: gone_from_slurm(slurm_id), "Slurm to end the cancelled job", 60)
        wait_until(lambda: not list(folder.glob("*.pkl")), "the cancelled job's pickles to go", 30)
        assert routes.rest_poll(job_id)[1]["status"] == "cancelled"
        assert list(folder.glob("*_0_log.err"))  # its logs stay while the job can be read


def test_a_value_that_cannot_be_pickled_back_is_said_so(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-unpicklable", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool()(lock)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("lock", {})[1]["job_id"]
        ended = wait_until(
            lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
            "the job's end", 90)
        assert ended["status"] == "error", ended
        error = ended["error"]
        assert error.startswith("the tool returned a value that could not be pickled to send it back from Slurm"), error
        assert "cannot pickle '_thread.lock' object" in error, error
        assert "write the result to a file in the job's folder and return its path" in error, error
        assert "before the tool returned" not in error, error
        folder = tmp_path / "slurm-jobs" / job_id
        assert not list(folder.glob("*.pkl*")), list(folder.iterdir())  # the half-written result went with the call
