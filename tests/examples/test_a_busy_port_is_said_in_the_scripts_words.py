"""An example script given a busy port by ``--port N`` or ``$MCP_PORT`` (a script's ``add_port_option``) says to
use ``--port 0`` for any free port, as ``nanohubmcp run`` does, not the Python keyword ``port=0`` (trial58 F7);
a hard-coded ``server.run(port=N)`` still says ``port=0``
(tests/workbench/test_a_busy_port_is_one_clear_line_not_a_traceback.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from example_process import EXAMPLES

pytestmark = pytest.mark.slow


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize("how", ["--port", "MCP_PORT"])
def test_the_example_says_port_0_as_an_option(busy_port: int, how: str) -> None:
    environment = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "MCP_TOKEN")}
    command = [sys.executable, str(EXAMPLES / "simple" / "start_mcp.py"), "--host", "127.0.0.1"]
    if how == "--port":
        command += ["--port", str(busy_port)]
    else:
        environment["MCP_PORT"] = str(busy_port)
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"Error: port {busy_port} on 127.0.0.1 is already in use: stop the other server, pick another port, "
        "or use --port 0 for any free port"
    ]
