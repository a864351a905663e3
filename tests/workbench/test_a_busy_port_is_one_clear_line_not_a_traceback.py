"""``python start_mcp.py`` on a port something else holds: one line saying what to do, exit status 1.

A code that catches the error still gets the ``ConfigurationError`` itself. Issue 17, "Small
things a new user hit".
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanohubmcp import ConfigurationError, MCPServer

SCRIPT = """
from nanohubmcp import MCPServer

server = MCPServer("busy")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

if __name__ == "__main__":
    server.run(host="127.0.0.1", port={port})
"""


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_the_script_prints_one_line_and_exits_1(busy_port: int, tmp_path: Path) -> None:
    script = tmp_path / "start_mcp.py"
    script.write_text(SCRIPT.format(port=busy_port))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"Error: port {busy_port} on 127.0.0.1 is already in use: stop the other server, pick another port, "
        "or use port=0 for any free port"
    ]


def test_code_that_catches_it_gets_the_configuration_error(busy_port: int) -> None:
    server = MCPServer("busy")
    before = sys.excepthook
    with pytest.raises(ConfigurationError, match="already in use"):
        server.run(host="127.0.0.1", port=busy_port, quiet=True)
    sys.excepthook = before  # what the uncaught case would have printed is not this test's business


def test_an_open_address_that_cannot_be_bound_gets_no_serving_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The "serving ... with no authorization" warning comes only once listening succeeded (trial10 F12)."""
    with socket.socket() as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen()
        port = holder.getsockname()[1]
        script = tmp_path / "start_mcp.py"
        script.write_text(SCRIPT.format(port=port).replace('"127.0.0.1"', '"0.0.0.0"'))
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 1
        assert done.stderr.splitlines() == [
            f"Error: port {port} on 0.0.0.0 is already in use: stop the other server, pick another port, "
            "or use port=0 for any free port"
        ]
        server = MCPServer("busy")
        with caplog.at_level(logging.WARNING, logger="nanohubmcp"), pytest.raises(ConfigurationError):
            server.start(host="0.0.0.0", port=port, quiet=True, token="")
        assert "no authorization" not in caplog.text
