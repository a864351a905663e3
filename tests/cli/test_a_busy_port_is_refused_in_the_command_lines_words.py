"""``nanohubmcp run`` on a busy port names ``--port 0`` for any free port, not ``run()``'s ``port=0`` (trial45
T45-19); a script calling ``server.run()`` is still told ``port=0``
(tests/workbench/test_a_busy_port_is_one_clear_line_not_a_traceback.py).

``nanohubmcp sim2l`` on a busy port is refused so too, before it reads the notebooks and loads papermill and
simtool (trial67 F3: the port was found busy only when serving started, after 10-24 s of imports on a loaded
machine)."""

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
COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"


def _on_a_busy_port(tmp_path: Path, *command: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """``nanohubmcp COMMAND... --port P`` run while this process listens on P; its outcome and P."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    env.update(HOME=str(tmp_path), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "nanohubmcp", *command, "--port", str(port)], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    return done, port


def test_run_on_a_busy_port_says_port_0_as_an_option(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    done, port = _on_a_busy_port(tmp_path, "run", "app.py")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"nanohubmcp run: error: port {port} on 127.0.0.1 is already in use: stop the other server, pick another "
        "port, or use --port 0 for any free port")


def test_a_busy_port_is_refused_before_the_notebook_is_read(tmp_path: Path) -> None:
    done, port = _on_a_busy_port(tmp_path, "sim2l", str(COOLING))
    assert done.returncode == 1, done.stderr
    assert "loading papermill" not in done.stderr, "the port was refused only after papermill was loaded"
    assert done.stderr.splitlines()[-1] == (
        f"nanohubmcp sim2l: error: port {port} on 127.0.0.1 is already in use: stop the other server, pick another "
        "port, or use --port 0 for any free port")
