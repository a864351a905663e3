"""A command whose output's reader went first (``nanohubmcp provenance list | head``) ends quietly, as ``ls``
does, with the status a shell gives a program its pipe's reader ended (128 + SIGPIPE): no BrokenPipeError
traceback on standard error (trial53 F3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nanohubmcp import MCPServer


def test_provenance_list_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = MCPServer("piped", state_dir=str(state))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.start(port=0)
    try:
        for n in range(3):
            server.call("add", {"a": n, "b": 1})
        server.core.provenance.recent(1)  # (written now: a read writes what is pending)
    finally:
        server.stop()

    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the command writes a line
    try:
        listed = subprocess.run(
            [sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
            stdout=writer, stderr=subprocess.PIPE, text=True, timeout=60,
        )
    finally:
        os.close(writer)
    assert listed.stderr == ""
    assert listed.returncode == 141

    whole = subprocess.run(  # (the same command into a reader that stays: the records, status 0)
        [sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
        capture_output=True, text=True, timeout=60,
    )
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout.splitlines()) == 4
