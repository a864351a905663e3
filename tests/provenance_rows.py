"""The provenance records a state folder holds, as a user reads them from a shell: ``nanohubmcp provenance list``
run in a process of its own (the tests of a stopped server's records: the stop must have written them)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def provenance_rows(state: Path, said: str = "") -> list[str]:
    """The rows ``nanohubmcp provenance list --state-dir STATE`` prints: one line per record, newest first, the
    header left out. A failing command fails the test with its stderr and ``said`` (a server's log, say)."""
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr + said
    return [line for line in done.stdout.splitlines()[1:] if line.strip()]


def nanohubmcp_with_data_home(data: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``nanohubmcp ARGS...`` run in a process of its own whose default root is under ``data`` (``XDG_DATA_HOME``:
    ``data/nanohubmcp/NAME`` is ``MCPServer("NAME")``'s default state folder), with no state variable set."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NANOHUBMCP_STATE_DIR", "SESSIONDIR", "SESSION_DIR")}
    env["XDG_DATA_HOME"] = str(data)

    def nanohubmcp(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "nanohubmcp", *args], capture_output=True, text=True,
                              timeout=60, env=env)

    return nanohubmcp
