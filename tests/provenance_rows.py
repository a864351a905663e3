"""The provenance records a state folder holds, as a user reads them from a shell: ``nanohubmcp provenance list``
run in a process of its own (the tests of a stopped server's records: the stop must have written them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def provenance_rows(state: Path, said: str = "") -> list[str]:
    """The rows ``nanohubmcp provenance list --state-dir STATE`` prints: one line per record, newest first, the
    header left out. A failing command fails the test with its stderr and ``said`` (a server's log, say)."""
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr + said
    return [line for line in done.stdout.splitlines()[1:] if line.strip()]
