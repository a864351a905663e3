"""``nanohubmcp run`` / ``bridge`` / ``desktop-config`` read the token from ``--token-file`` (a file only its
owner can read) or ``$MCP_TOKEN``, so it never has to be in ``/proc/<pid>/cmdline``, which every user of a
shared login node can read (trial6 F6). ``--token`` still works, with a one-line warning on stderr."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import bearer_status

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(90)

TOKEN = "cli-SECRET-0815"
WARNING = "--token on the command line is visible to other users"
APP = "from nanohubmcp import MCPServer\nserver = MCPServer('token-options')\n"
NANOHUBMCP = [sys.executable, "-m", "nanohubmcp"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def private_file(tmp_path: Path, mode: int = 0o600) -> Path:
    secret = tmp_path / "token"
    secret.write_text(TOKEN + "\n")
    secret.chmod(mode)
    return secret


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    return {**base, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **extra}


def test_run_serves_with_the_token_of_a_private_file_that_no_command_line_shows(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    port = free_port()
    proc = subprocess.Popen([*NANOHUBMCP, "run", "app.py", "--port", str(port), "--token-file",
                             str(private_file(tmp_path))], cwd=tmp_path, env=env(), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while bearer_status(f"http://127.0.0.1:{port}/", None) is None:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert TOKEN.encode() not in Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert bearer_status(f"http://127.0.0.1:{port}/", None) == 401
        assert bearer_status(f"http://127.0.0.1:{port}/", TOKEN) == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert WARNING not in err.decode()


def test_run_refuses_a_token_file_others_can_read(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    secret = private_file(tmp_path, 0o640)
    done = subprocess.run([*NANOHUBMCP, "run", "app.py", "--port", str(free_port()), "--token-file", str(secret)],
                          cwd=tmp_path, env=env(), capture_output=True, timeout=60, check=False)
    assert done.returncode == 1
    assert f"chmod 600 {secret}" in done.stderr.decode()
    assert b"Traceback" not in done.stderr


def test_desktop_config_warns_about_a_token_on_the_command_line_only(tmp_path: Path) -> None:
    url = ["desktop-config", "--url", "http://127.0.0.1:8000/mcp"]
    runs = {
        "argv": subprocess.run([*NANOHUBMCP, *url, "--token", TOKEN], env=env(), capture_output=True, timeout=60),
        "env": subprocess.run([*NANOHUBMCP, *url], env=env(MCP_TOKEN=TOKEN), capture_output=True, timeout=60),
        "file": subprocess.run([*NANOHUBMCP, *url, "--token-file", str(private_file(tmp_path))], env=env(),
                               capture_output=True, timeout=60),
    }
    for how, done in runs.items():
        assert done.returncode == 0, (how, done.stderr)
        (entry,) = json.loads(done.stdout)["mcpServers"].values()
        assert entry["env"]["MCP_TOKEN"] == TOKEN, how
        assert TOKEN not in entry["args"], how
        assert (WARNING in done.stderr.decode()) == (how == "argv"), (how, done.stderr)


def test_the_bridge_sends_the_token_of_a_private_file(tmp_path: Path) -> None:
    server = MCPServer("token-options")
    server.start(host="127.0.0.1", port=0, token=TOKEN)
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    try:
        done = subprocess.run([*NANOHUBMCP, "bridge", f"{server.url}mcp", "--token-file", str(private_file(tmp_path))],
                              input=initialize.encode() + b"\n", capture_output=True, timeout=60, env=env(),
                              check=False)
    finally:
        server.stop()
    assert json.loads(done.stdout.decode().splitlines()[0])["result"]["serverInfo"]["name"] == "token-options"
    assert WARNING not in done.stderr.decode()
