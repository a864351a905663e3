"""A job whose function returns while a SIGTERM-stopped ``nanohubmcp run`` process waits for it is stored
``completed`` with the value it returned, and its provenance record says so.

Trial57 F3: the process printed "waiting for 1 running job(s) to return", the function (which never looks
at ``ctx.is_cancelled()``) ran to its end and returned, and yet the job was stored failed "the server
stopped while this job ran: it did not complete" — about a function that completed. A function that saw the
cancel and returned early is still answered that error (``test_sigterm_tells_running_jobs_to_cancel``).
A real ``nanohubmcp run`` process, SIGTERM, restarted on the same state folder; real HTTP, real SQLite.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from provenance_rows import provenance_rows
from support import app_server, post_tool, wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
import time
from nanohubmcp import Context, MCPServer
server = MCPServer("steps")

@server.async_tool()
def steps(count: int, ctx: Context) -> dict:
    '''Takes ``count`` steps of 0.1 s, reporting each; never looks for a cancel.'''
    print("steps: running", flush=True)
    for step in range(count):
        ctx.report_progress(step, count, f"{step}/{count}")
        time.sleep(0.1)
    print("steps: returned", flush=True)
    return {"done": count}
"""


def test_a_job_returning_during_the_stops_wait_is_stored_completed_with_its_value(tmp_path: Path) -> None:
    app = tmp_path / "steps_app.py"
    app.write_text(APP)
    state = tmp_path / "state"
    with app_server(app, "--state-dir", str(state), log=tmp_path / "first.log") as served:
        job_id = post_tool(served.url, "steps", {"count": 20})["job_id"]
        wait_until(lambda: "steps: running" in served.output, "the job starts")
        served.process.send_signal(signal.SIGTERM)
        code = served.process.wait(30)
        output = served.output
    assert (code, "steps: returned" in output, "exiting without them" in output) == (0, True, False), output

    with app_server(app, "--state-dir", str(state), log=tmp_path / "second.log") as again:
        answer = post_tool(again.url, "get_job_result", {"job_id": job_id})
        again.process.send_signal(signal.SIGTERM)
        again.process.wait(30)
    # Before: {"status": "error", ..., "error": "the server stopped while this job ran: it did not complete; ..."}
    assert answer == {"status": "done", "job_id": job_id, "result": {"done": 20}}, output
    rows = provenance_rows(state, output)
    assert len(rows) == 1, rows
    assert " steps " in rows[0], rows
    assert " completed " in rows[0], rows
