"""A port no server listens on, held by a client connection's own end (in TIME-WAIT after the client closed: the
kernel refuses to bind it even with ``SO_REUSEADDR``), is refused saying so, with the range the system gives client
connections (``/proc/sys/net/ipv4/ip_local_port_range``) and a port outside it to pick. Before (trial61 F1), the
refusal said "stop the other server", sending an operator hunting for a server that did not exist. ``nanohubmcp
run`` and ``start_mcp`` (a real subprocess each); a port a server listens on is refused as before."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support import wait_until

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")]

APP = """
from nanohubmcp import MCPServer
server = MCPServer("held")
"""


def time_wait_port() -> int:
    """A port a closed client connection holds in TIME-WAIT, no socket listening on it."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        client = socket.create_connection(server.getsockname())
        port = client.getsockname()[1]
        accepted, _ = server.accept()
        client.close()  # the client closes first: its end goes to TIME-WAIT
        wait_until(lambda: accepted.recv(1) == b"", "the client's FIN", 10)
        accepted.close()

    def in_time_wait() -> bool:
        rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        return any(row[1].endswith(f":{port:04X}") and row[3] == "06" for row in rows)

    wait_until(in_time_wait, "the client's end in TIME-WAIT", 10)
    return port


def run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    env.update(HOME=str(tmp_path), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))
    return subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
                          check=False)


def test_run_on_a_port_a_client_connection_holds_says_so_and_where_to_pick_one(tmp_path: Path) -> None:
    first, last = (int(word) for word in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    port = time_wait_port()
    done = run(tmp_path, "-m", "nanohubmcp", "run", "app.py", "--port", str(port))
    assert done.returncode == 1, done.stderr
    line = done.stderr.splitlines()[-1]
    assert line.startswith(f"nanohubmcp run: error: port {port} on 127.0.0.1 is already in use, though no server "
                           "listens on it: a connection holds it as its local end"), line
    assert "TIME-WAIT" in line
    assert (f"{port} is in the range the system gives client connections ({first}-{last}, "
            f"/proc/sys/net/ipv4/ip_local_port_range): pick a port outside it, e.g. one below {first}, or use "
            "--port 0 for any free port") in line
    assert "stop the other server" not in line


def test_start_mcp_on_a_port_a_client_connection_holds_says_so(tmp_path: Path) -> None:
    port = time_wait_port()
    done = run(tmp_path, "-m", "nanohubmcp.nanohub.launcher", "--app", "app.py", "--host", "127.0.0.1",
               "--port", str(port))
    assert done.returncode == 2, done.stderr
    assert f"port {port} on 127.0.0.1 (for the app) is already in use, though no server listens on it" in done.stderr
    assert "pick a port outside it" in done.stderr


def test_a_port_a_server_listens_on_is_refused_as_before(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = run(tmp_path, "-m", "nanohubmcp", "run", "app.py", "--port", str(port))
    assert done.stderr.splitlines()[-1] == (
        f"nanohubmcp run: error: port {port} on 127.0.0.1 is already in use: stop the other server, pick another "
        "port, or use --port 0 for any free port")


HOLD_AND_RUN = """
import socket, subprocess, sys
server = socket.socket(); server.bind(("127.0.0.1", 5555)); server.listen()
client = socket.socket(); client.bind(("127.0.0.1", 65000)); client.connect(("127.0.0.1", 5555))
accepted, _ = server.accept()
done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "65000"],
                      capture_output=True, text=True, timeout=60)
print(done.returncode)
print(done.stderr.splitlines()[-1])
"""


def namespaces_work() -> bool:
    try:
        return subprocess.run(["unshare", "-rn", "true"], capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not namespaces_work(), reason="needs unshare -rn (a network namespace of its own)")
@pytest.mark.parametrize(("ports", "advice"), [
    ("1024 65535", "(1024-65535, /proc/sys/net/ipv4/ip_local_port_range), which holds every unprivileged port: "
                   "wait for the connection to close (up to a minute after, in TIME-WAIT), or reserve the port for "
                   "servers (sysctl net.ipv4.ip_local_reserved_ports=65000), or use --port 0 for any free port"),
    ("1500 65535", "pick a port outside it, e.g. one below 1500, or use --port 0"),
    ("1024 65001", "pick a port outside it, e.g. one above 65001, or use --port 0"),
])
def test_a_range_with_no_room_above_it_is_never_told_a_port_above_65535(tmp_path: Path, ports: str,
                                                                         advice: str) -> None:
    """review r36 F3: a range widened to 1024-65535 was told 'pick ... one above 65535' (no such port). Run in a
    network namespace of its own (``unshare -rn``), where the range is set without touching the host's."""
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "hold.py").write_text(HOLD_AND_RUN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    env.update(HOME=str(tmp_path), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))
    script = f'ip link set lo up && echo "{ports}" > /proc/sys/net/ipv4/ip_local_port_range && "$0" hold.py'
    done = subprocess.run(["unshare", "-rn", "sh", "-c", script, sys.executable], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=90, check=False)
    code, line = done.stdout.splitlines()[-2:]
    assert code == "1", done.stdout + done.stderr
    assert advice in line, line
    assert "above 65535" not in line
