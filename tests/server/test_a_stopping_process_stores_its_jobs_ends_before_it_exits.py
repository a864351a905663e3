"""A process stopped by SIGTERM whose ``@async_tool`` job returns when told to cancel stores the job's end
before it exits, and does not crash on its way out.

Found by a flaky ``test_sigterm_tells_running_jobs_to_cancel`` (about 1 run in 11: "Fatal Python error:
Segmentation fault", exit -11). The exit's wait ended once the job's function returned, while its worker
thread was still storing the job's end in ``jobs.sqlite3``; the exit's finalizers then closed that SQLite
connection under the thread's statement. Here another connection holds the file's write lock while the
process stops, so that store is still under way when the function returns, every time: a process that does
not wait for it (``JobStore.settling``) exits with the job's record still ``working``; one whose exit closed
the connection under it hung, lost the end or crashed (the connection's side: the test in
``tests/jobs/test_the_exit_does_not_close_a_store_under_a_thread_using_it.py``).
A real ``server.run()`` process, real HTTP, the real SQLite file.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
from pathlib import Path

from support import post_tool, script_server, wait_until

from nanohubmcp.server.jobs.settle import SERVER_STOPPED

SCRIPT = """
import sys, time
from nanohubmcp import Context, MCPServer
server = MCPServer("waits", state_dir=sys.argv[1])

@server.async_tool()
def waits(ctx: Context) -> str:
    '''Returns once told to cancel.'''
    print("waits: running", flush=True)
    while not ctx.is_cancelled():
        time.sleep(0.02)
    print("waits: told to cancel", flush=True)
    return "stopped"

server.run(host="127.0.0.1", port=0)
"""


def test_the_end_of_a_job_told_to_cancel_at_sigterm_is_stored_before_the_process_exits(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with script_server(SCRIPT, str(state), directory=tmp_path) as served:
        job_id = post_tool(served.url, "waits", {})["job_id"]
        wait_until(lambda: "waits: running" in served.output, "the job starts")
        holder = sqlite3.connect(state / "jobs.sqlite3", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the job's end, stored on its worker thread, waits for this
        try:
            served.process.send_signal(signal.SIGTERM)
            wait_until(lambda: "waits: told to cancel" in served.output, "the job sees the cancel", 10)
            # Before the fix the process was leaving by now, closing the connection under the waiting store.
            with contextlib.suppress(subprocess.TimeoutExpired):
                served.process.wait(1)
        finally:
            holder.execute("ROLLBACK")
        code = served.process.wait(30)
        stored = holder.execute("SELECT status, status_message FROM jobs WHERE id = ?", (job_id,)).fetchone()
        holder.close()
        output = served.output
    assert (code, stored, "Fatal Python error" in output, "Traceback" in output) == (
        0, ("failed", SERVER_STOPPED), False, False), output
