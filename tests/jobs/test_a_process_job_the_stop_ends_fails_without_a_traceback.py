"""A job on the ``processes`` executor whose function takes a ``ctx``, running when its server is stopped
(SIGTERM), ends ``failed`` with "the server stopped while this job ran: ..." as every job the stop cuts short
does, and the stop prints nothing of it: the job's process is ended, no traceback, no "tool ... failed".

Before, the stop closed the executor (its manager process, which carries the job's cancel flag) and then
the cancelled job set that flag through the manager's closed pipe: a ``BrokenPipeError`` traceback on the
server's stderr, twice, and ``tool 'waits' failed (...): BrokenPipeError: [Errno 32] Broken pipe`` — the
same for a Rappture or Sim2L tool served on that executor. A real server process, real HTTP, real SIGTERM.
"""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest
from support import post_tool, script_server, wait_until

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"

pytestmark = pytest.mark.timeout(120)

SCRIPT = """
import os, sys, time
from pathlib import Path
from nanohubmcp import Context, MCPServer

server = MCPServer("waits", state_dir=sys.argv[1], job_executor="processes")

@server.async_tool()
def waits(ctx: Context) -> str:
    '''Runs until told to cancel.'''
    Path(sys.argv[1]).parent.joinpath(f"running-{os.getpid()}").touch()
    while not ctx.is_cancelled():
        time.sleep(0.02)
    return "stopped"

server.run(host="127.0.0.1", port=0)
"""


def test_a_process_job_the_stop_ends_fails_and_the_stop_prints_no_traceback(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with script_server(SCRIPT, str(state), directory=tmp_path) as served:
        job_id = post_tool(served.url, "waits", {})["job_id"]
        wait_until(lambda: list(tmp_path.glob("running-*")), "the job's process runs", 60)
        served.process.send_signal(signal.SIGTERM)
        code = served.process.wait(30)
        output = served.output
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        stored = db.execute("SELECT status, status_message FROM jobs WHERE id = ?", (job_id,)).fetchone()
    assert (code, "Traceback" in output, "failed" in output) == (0, False, False), output
    assert stored == ("failed", STOPPED), output
