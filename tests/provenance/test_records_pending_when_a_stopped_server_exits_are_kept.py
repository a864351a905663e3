"""Records still pending when the process exits are written even after the record database was
opened (an earlier record read or written): the database's connection is closed after the
writer's last write, never before it. Two servers share one state directory; each writes and
reads a record, one is stopped, the other answers one more call, and the interpreter exits at once.

Before the fix the connection's finalizer ran first at exit ("could not store 1 provenance
record(s): Cannot operate on a closed database") and the last records were lost.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
import threading

from nanohubmcp import MCPServer

def make():
    server = MCPServer("twins", state_dir=sys.argv[1])

    @server.tool()
    def add(a: float, b: float) -> float:
        '''a + b.'''
        return a + b

    return server

first, second = make(), make()
first.start(port=0)
second.start(port=0)
for server in (first, second):
    server.call("add", {"a": 0, "b": 1})
    assert server.core.provenance.recent(1)  # a read: the database is open and the record in it
for thread in threading.enumerate():  # the one-off read of the distributions table (exit would wait for it)
    if thread.name == "nanohubmcp-distributions":
        thread.join()
first.stop()
second.call("add", {"a": 1, "b": 1})  # pending: the writer waits for more before writing
# no more: the interpreter exits with the last records still waiting for the writer
"""


def test_records_pending_at_exit_are_written_after_the_database_was_opened(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "could not store" not in done.stderr, done.stderr
    db = sqlite3.connect(tmp_path / "provenance.sqlite3")
    try:
        rows = db.execute("SELECT arguments FROM calls WHERE tool = 'add'").fetchall()
    finally:
        db.close()
    assert sorted(row[0] for row in rows) == ['{"a":0,"b":1}', '{"a":0,"b":1}', '{"a":1,"b":1}'], done.stderr
