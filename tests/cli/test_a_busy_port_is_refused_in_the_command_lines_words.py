"""``nanohubmcp run`` on a busy port names ``--port 0`` for any free port, not ``run()``'s ``port=0`` (trial45
T45-19); a script calling ``server.run()`` is still told ``port=0``
(tests/workbench/test_a_busy_port_is_one_clear_line_not_a_traceback.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

APP = """
from nanohubmcp import MCPServer
server = MCPServer("busy")
"""


def test_run_on_a_busy_port_says_port_0_as_an_option(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    env.update(HOME=str(tmp_path), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", str(port)], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"nanohubmcp run: error: port {port} on 127.0.0.1 is already in use: stop the other server, pick another "
        "port, or use --port 0 for any free port")
