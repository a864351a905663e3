"""``--state-url`` with a password puts the password in the process's command line, which every user of
the machine can read (``ps``): the command warns, as ``--token`` does, and names the variable to use
instead; the warning never shows the password (trial16 F13)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

APP = 'from nanohubmcp import MCPServer\nserver = MCPServer("app")\n'
PASSWORD = "hunter2-SECRET"


def test_a_password_in_state_url_is_warned_about_without_showing_it(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    with socket.socket() as closed:  # bound, never listening: Redis refuses at once
        closed.bind(("127.0.0.1", 0))
        url = f"redis://:{PASSWORD}@127.0.0.1:{closed.getsockname()[1]}/0"
        done = subprocess.run(
            [sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "0", "--state-url", url, "--workers", "2"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
            env={k: v for k, v in os.environ.items() if k != "NANOHUBMCP_STATE_URL"},
        )  # fmt: skip
    assert done.returncode != 0  # nothing to serve with: the store is not there
    warning = [line for line in done.stderr.splitlines() if line.startswith("warning: --state-url")]
    assert warning == [
        "warning: --state-url carries a password, visible to other users of this machine (ps, /proc/<pid>/cmdline); "
        "set NANOHUBMCP_STATE_URL in the environment instead"
    ], done.stderr
    assert PASSWORD not in done.stderr


def test_a_state_url_without_a_password_is_not_warned_about(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", "app.py", "--state-url", "redis://127.0.0.1:1/0", "--workers", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert "warning: --state-url" not in done.stderr
