"""start_mcp end to end: real server, stand-in use/wrwroxy/conda, loopback only, real signals."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from nanohub_standins import GATED_APP, GOOD_APP, Hub, Launch, call_add, cmdline, free_port, wait_for_file

pytestmark = pytest.mark.slow

WEBER_URL = "https://proxy.hub.example.org/weber/4242/c00kie/123/"
PREFIX = "/weber/4242/c00kie/123/"
Start = Callable[..., Launch]


def refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except OSError:
        return True


def assert_clean_stop(hub: Hub, run: Launch, sig: int, ports: list[int]) -> None:
    run.proc.send_signal(sig)
    assert run.wait(timeout=30) == 128 + sig, run.stderr
    assert hub.survivors() == []
    assert list(hub.tmpdir.iterdir()) == []
    assert all(refused(port) for port in ports)


def test_with_wrwroxy_the_app_runs_behind_it_and_sigterm_leaves_nothing(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    weber, app_port = free_port(), free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(
        [
            "--app",
            str(app),
            "--host",
            "127.0.0.1",
            "--weber-port",
            str(weber),
            "--port",
            str(app_port),
            "--debug",
        ]
    )
    assert run.wait_for("MCP Server ready!"), run.stderr
    out = run.stdout
    assert f"Proxy URL : {WEBER_URL}" in out
    assert f"MCP Server ready! Access it at: {WEBER_URL}" in out
    assert f"Streamable HTTP endpoint: {WEBER_URL}mcp" in out
    assert f"SSE endpoint: {WEBER_URL}sse" in out
    assert f"Listening locally on: http://127.0.0.1:{weber}/" in out
    assert "(wrwroxy-0.10)" in run.stderr
    log = hub.log.read_text().splitlines()
    assert "use -e wrwroxy-0.10" in log
    assert (
        f"wrwroxy --listenHost 127.0.0.1 --listenPort {weber} --forwardHost 127.0.0.1 "
        f"--forwardPort {app_port} --stream-log" in log
    )

    # The whole path on loopback: MCP client -> stand-in wrwroxy -> app (serving at /).
    names, text = call_add(f"http://127.0.0.1:{weber}/mcp")
    assert names == ["add"]
    assert text == "5"
    assert_clean_stop(hub, run, signal.SIGTERM, [weber, app_port])


def test_without_wrwroxy_the_app_serves_the_weber_path_and_a_port_request_is_refused(
    hub: Hub, launch: Start
) -> None:
    hub.resources()
    hub.use("rappture-1.9 submit-3")
    weber, asked = free_port(), free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", str(asked)])
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert (
        f"--port {asked} cannot be honoured: without wrwroxy, weber forwards only to port {weber}"
        in run.stderr
    )
    assert "no wrwroxy found" in run.stderr
    assert f"Listening locally on: http://127.0.0.1:{weber}{PREFIX}" in run.stdout
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}mcp") == (["add"], "5")
    # Legacy SSE: the endpoint event's path carries the prefix, so the POSTs land under it too.
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}sse", "sse") == (["add"], "5")
    assert refused(asked)
    assert_clean_stop(hub, run, signal.SIGTERM, [weber])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_off_hub_port_is_honoured_and_every_stop_signal_cleans_up(hub: Hub, launch: Start, sig: int) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--port", str(port)], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert f"MCP Server ready! Access it at: http://127.0.0.1:{port}/" in run.stdout
    assert "Proxy URL" not in run.stdout
    assert "SESSION" in run.stderr  # the reason it is not a hub session
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")
    assert_clean_stop(hub, run, sig, [port])


def test_ready_is_printed_only_once_the_port_answers(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("gated.py", GATED_APP + GOOD_APP)  # imports until the test creates `go`
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--port", str(port)], hub.env(session=False))
    wait_for_file(hub.root / "importing", run)
    # The app is held in its import (no fixed wait decides it): its port cannot answer yet, and the
    # launcher, started before it and waiting on that port, has said nothing of being ready.
    assert refused(port)
    assert "MCP Server ready!" not in run.stdout
    assert run.proc.poll() is None, run.stderr
    (hub.root / "go").touch()
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert not refused(port)


def test_mcp_port_is_used_when_there_is_no_port_option(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1"], hub.env(session=False, MCP_PORT=str(port)))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")


def test_in_a_jupyter_session_the_app_is_published_under_the_proxy_route(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use()  # present, but a notebook's weber port belongs to Jupyter Server: not used
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", str(port)], hub.env(JPY_PARENT_PID="1"))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert f"MCP Server ready! Access it at: {WEBER_URL}proxy/{port}/" in run.stdout
    assert "use -e" not in hub.log.read_text()
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")


def test_a_broken_app_exits_non_zero_with_its_traceback(hub: Hub, launch: Start) -> None:
    app = hub.app("broken.py", "import math\n\nraise RuntimeError('boom while importing the app')\n")
    run = launch(
        ["--app", str(app), "--host", "127.0.0.1", "--port", str(free_port())], hub.env(session=False)
    )
    assert run.wait(timeout=60) == 1
    assert "Traceback (most recent call last)" in run.stderr
    assert "RuntimeError: boom while importing the app" in run.stderr
    assert "start_mcp: error: the app exited with status 1 before listening" in run.stderr
    assert "MCP Server ready!" not in run.stdout
    assert hub.survivors() == []


def test_an_app_without_server_gets_a_one_line_error(hub: Hub, launch: Start) -> None:
    app = hub.app("noserver.py", "app = 42\n")
    run = launch(
        ["--app", str(app), "--host", "127.0.0.1", "--port", str(free_port())], hub.env(session=False)
    )
    assert run.wait(timeout=60) == 2
    assert run.stderr.strip().splitlines()[-1] == (
        "start_mcp: error: noserver.py defines no module-level `server` (e.g. server = MCPServer('name'))"
    )
    assert "Traceback" not in run.stderr


def test_a_missing_app_file_is_a_usage_error(hub: Hub, launch: Start) -> None:
    run = launch(["--app", "nowhere.py"], hub.env(session=False))
    assert run.wait(timeout=30) == 2
    assert run.stderr.strip() == "start_mcp: error: app file 'nowhere.py' does not exist"


def test_a_busy_port_is_refused_before_anything_starts(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", GOOD_APP)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = launch(["--app", str(app), "--host", "127.0.0.1", "--port", str(port)], hub.env(session=False))
        assert run.wait(timeout=30) == 2
    assert f"port {port} on 127.0.0.1 (for the app) is already in use" in run.stderr


def find(hub: Hub, word: str) -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = [pid for pid in hub.survivors() if word in cmdline(pid)]
        if pids:
            return pids[0]
        time.sleep(0.05)
    raise AssertionError(f"no process running {word}")


@pytest.mark.parametrize(
    ("victim", "says"), [("--listenPort", "wrwroxy"), ("nanohubmcp.nanohub.child", "the app")]
)
def test_when_a_child_dies_the_launcher_says_so_and_stops_the_other(
    hub: Hub, launch: Start, victim: str, says: str
) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    weber, app_port = free_port(), free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(
        ["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", str(app_port)]
    )
    assert run.wait_for("MCP Server ready!"), run.stderr
    os.kill(find(hub, victim), signal.SIGKILL)
    assert run.wait(timeout=30) == 1
    assert f"start_mcp: error: {says} (pid" in run.stderr
    assert "exited with status -9; stopping" in run.stderr
    assert hub.survivors() == []
    assert refused(weber)
    assert refused(app_port)


def test_an_app_outlives_no_sigkilled_launcher(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--port", str(port)], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    run.proc.kill()
    run.wait(timeout=10)
    deadline = time.monotonic() + 10
    while hub.survivors() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert hub.survivors() == []
    assert refused(port)


def base_python() -> str:
    """The interpreter the venv was made from: a Python *without* this venv's packages."""
    return os.path.realpath(sys.executable)


def test_python_env_runs_the_app_with_that_environment_s_python(hub: Hub, launch: Start) -> None:
    prefix = hub.root / "conda" / "envs" / "AIIDA"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python3").symlink_to(base_python())
    hub.conda({"AIIDA": prefix})
    port = free_port()
    app = hub.app(
        "app.py",
        GOOD_APP + "\nimport sys\nprint('app python:', sys.executable, sys.prefix, flush=True)\n",
    )
    run = launch(
        ["--app", str(app), "--host", "127.0.0.1", "--port", str(port), "--python-env", "AIIDA"],
        hub.env(session=False),
    )
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert f"app python: {prefix / 'bin' / 'python3'}" in run.stdout
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")
    assert_clean_stop(hub, run, signal.SIGTERM, [port])


def test_an_unknown_python_env_is_a_clear_error(hub: Hub, launch: Start) -> None:
    hub.conda({})
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--python-env", "AIIDA"], hub.env(session=False))
    assert run.wait(timeout=30) == 2
    assert "start_mcp: error: conda has no environment named 'AIIDA'" in run.stderr


def test_the_console_script_entry_point_is_main() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'start_mcp = "nanohubmcp.nanohub.launcher:main"' in text
