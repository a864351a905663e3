"""A process that exits while a daemon thread is inside a statement on a state store's SQLite connection
leaves that connection alone: the exit's finalizers do not close it under the thread.

They did (``weakref.finalize(store, db.close)``, run at exit): the close waited for the thread's statement,
then the thread went on with a connection closed under it, and the process died of a segmentation fault
(seen as a flaky ``test_sigterm_tells_running_jobs_to_cancel``: a stopped server's job thread storing its
job's end). Here another connection holds the file's write lock, so the thread's statement waits in SQLite
while the process exits; the process must be gone at once, not wait on the close. The real store, the
real SQLite file.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys, threading
from nanohubmcp.server.jobs.stores import SQLiteBackend

store = SQLiteBackend(sys.argv[1])
print("opened", flush=True)
sys.stdin.readline()  # the test holds the file's write lock from now on
writing = threading.Thread(target=store.update, args=("a-job", {"status": "failed"}), daemon=True)
writing.start()
while not store._lock.locked() and writing.is_alive():  # the thread's write has begun (it waits in SQLite)
    pass
print("writing", flush=True)
"""


def test_a_process_exits_while_its_thread_waits_inside_a_store_statement(tmp_path: Path) -> None:
    script = tmp_path / "store_user.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "state")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    holder: sqlite3.Connection | None = None
    try:
        assert proc.stdout.readline() == "opened\n", proc.stderr.read()
        holder = sqlite3.connect(tmp_path / "state" / "jobs.sqlite3", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "writing\n", proc.stderr.read()
        try:
            code: int | None = proc.wait(10)  # before: the exit's close waited on the thread's statement (30 s)
        except subprocess.TimeoutExpired:
            code = None
    finally:
        if holder is not None:
            holder.execute("ROLLBACK")
            holder.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
    stderr = proc.stderr.read()
    assert (code, "Fatal Python error" in stderr) == (0, False), stderr
