"""A ``%%mcp_tool --async`` job still running when its notebook kernel shuts down (JupyterLab's "Shut Down
Kernel") is ended at the stop: its job is stored ``failed`` with "the server stopped while this job ran", and its
provenance record says so with the time it ran up to the stop — as the sync call cut short by the same stop is.

Trial57 F6: the job's record stayed ``working`` after the kernel was gone, until another server opened the state
folder (``provenance list`` showed it ``working`` forever in a notebook never restarted); the reopen then failed
it with a duration counted up to the reopen (11.9 s for a job that ran 1.5 s). Real kernel (jupyter_client: a
kernel manager's shutdown, the request and SIGTERM 2.5 s later), a real REST call over HTTP, the records read
back with ``nanohubmcp provenance list`` and the job from the real SQLite file, no server reopening the folder.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel, server_url
from provenance_rows import provenance_rows
from support import wait_until

from nanohubmcp.server.jobs.settle import SERVER_STOPPED

pytestmark = pytest.mark.slow

SLEEP_SECONDS = 30


def _slow(marker: Path) -> str:
    return f'''%%mcp_tool --async
def slowjob(seconds: float) -> str:
    """Sleeps, never looking for a cancel."""
    import pathlib, time
    pathlib.Path({str(marker)!r}).write_text("running")
    time.sleep(seconds)
    return "rested"
'''


@pytest.mark.timeout(180)
def test_a_job_running_at_the_kernels_shutdown_is_ended_and_recorded_at_the_stop(start_kernel: Any,
                                                                                 tmp_path: Path) -> None:
    state = tmp_path / "state"
    marker = tmp_path / "slowjob-running"
    live: LiveKernel = start_kernel(NANOHUBMCP_STATE_DIR=str(state), MCP_TOKEN="")
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    live.run_ok(_slow(marker))
    url = server_url(live).removesuffix("mcp") + "tools/slowjob"
    request = urllib.request.Request(url, json.dumps({"seconds": SLEEP_SECONDS}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        job_id = json.loads(answer.read())["job_id"]
    wait_until(marker.exists, "the job running", 60)
    live.shutdown()  # a Jupyter server's way: the shutdown request, SIGTERM 2.5 s later
    wait_until(lambda: not live.manager.is_alive(), "the kernel's process ended", 60)

    with sqlite3.connect(state / "jobs.sqlite3") as db:
        stored = db.execute("SELECT status, status_message FROM jobs WHERE id = ?", (job_id,)).fetchone()
    assert stored == ("failed", SERVER_STOPPED)  # before: ("working", None), until a server reopened the folder
    rows = [line for line in provenance_rows(state) if " slowjob " in line]
    assert len(rows) == 1, rows
    assert " failed " in rows[0], rows
    assert "the server stopped while this job ran" in rows[0], rows
    seconds = float(re.findall(r"\s(\d+\.\d+)\s", rows[0])[-1])
    assert seconds < SLEEP_SECONDS / 2, rows  # timed to the stop, not to a later reopen
