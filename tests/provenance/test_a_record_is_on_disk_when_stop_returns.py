"""When ``server.stop()`` returns, the records of the calls it answered are on disk: another process
(the ``nanohubmcp provenance export`` command) finds them at once.

Found by an engineer's test: the records waited for the writer thread's next batch (~0.2 s after the
stop), so a command run right after a stop said there were no records.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from nanohubmcp import MCPServer


def test_the_export_command_finds_a_record_right_after_stop(
    tmp_path: Path, add_server: Callable[[str, Path], MCPServer]
) -> None:
    state = tmp_path / "state"
    server = add_server("stopped", state)
    try:
        uri = server.call("add", {"a": 1, "b": 2})["_meta"]["io.nanohub/provenance"]
    finally:
        server.stop()
    assert (state / "provenance.sqlite3").exists()  # no waiting: stop() wrote it
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nanohubmcp",
            "provenance",
            "export",
            uri,
            "--state-dir",
            str(state),
            "-o",
            str(tmp_path / "crate"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "crate" / "ro-crate-metadata.json").exists()
