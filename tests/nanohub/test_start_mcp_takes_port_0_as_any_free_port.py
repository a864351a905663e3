"""``start_mcp --port 0`` (or ``MCP_PORT=0``) serves on a free port and every URL it prints names that port,
as ``nanohubmcp run --port 0`` and a notebook's ``%config NanohubMCP.port = 0`` do. It listened on 8000 (off
the hub, also with ``SESSION`` set and an empty ``$SESSIONDIR/resources``) or 8001 (Jupyter), and behind
wrwroxy it refused to start ("port 0 for the app is out of range"). In a tool session without wrwroxy, weber
forwards only to its port: 0 is not honoured there, as no other port is, and start_mcp says so."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, call_add, free_port

pytestmark = pytest.mark.slow

WEBER_URL = "https://proxy.hub.example.org/weber/4242/c00kie/123/"
PREFIX = "/weber/4242/c00kie/123/"
Start = Callable[..., Launch]


def ready_port(run: Launch, base: str) -> int:
    """The port in the ready banner's ``MCP Server ready! Access it at: <base><port>/``."""
    assert run.wait_for("MCP Server ready!"), run.stderr
    found = re.search(rf"^MCP Server ready! Access it at: {re.escape(base)}(\d+)/$", run.stdout, re.MULTILINE)
    assert found, run.stdout
    return int(found.group(1))


@pytest.mark.parametrize("how", ["--port", "MCP_PORT"])
def test_with_an_unusable_session_port_0_is_a_free_port_named_in_every_line(
    hub: Hub, launch: Start, how: str
) -> None:
    (hub.sessiondir / "resources").write_text("")  # SESSION set, resources empty: served as off the hub
    app = hub.app("app.py", GOOD_APP)
    asked = ["--port", "0"] if how == "--port" else []
    run = launch(["--app", str(app), *asked], hub.env(**({"MCP_PORT": "0"} if how == "MCP_PORT" else {})))
    port = ready_port(run, "http://127.0.0.1:")
    assert port not in (0, 8000)
    assert f"serving as off the hub, on 127.0.0.1:{port} only" in run.stderr.splitlines()[0]
    assert f"Streamable HTTP endpoint: http://127.0.0.1:{port}/mcp" in run.stdout
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")


def test_in_jupyter_port_0_is_a_free_port_named_in_the_proxy_route(hub: Hub, launch: Start) -> None:
    hub.resources()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", "0"], hub.env(JPY_PARENT_PID="1"))
    port = ready_port(run, f"{WEBER_URL}proxy/")
    assert port not in (0, 8001)
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")


def test_behind_wrwroxy_port_0_is_the_app_s_free_port(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    weber = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", "0"])
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert f"MCP Server ready! Access it at: {WEBER_URL}" in run.stdout
    assert f"Listening locally on: http://127.0.0.1:{weber}/" in run.stdout
    (started,) = [line for line in hub.log.read_text().splitlines() if line.startswith("wrwroxy ")]
    forwarded = int(re.search(r"--forwardPort (\d+)", started).group(1))  # type: ignore[union-attr]
    assert forwarded not in (0, weber, weber + 1)
    assert call_add(f"http://127.0.0.1:{weber}/mcp") == (["add"], "5")
    assert call_add(f"http://127.0.0.1:{forwarded}/mcp") == (["add"], "5")  # the app itself, on that port


def test_without_wrwroxy_port_0_is_not_honoured_and_start_mcp_says_why(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use("rappture-1.9 submit-3")
    weber = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", "0"])
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert (
        f"--port 0 (any free port) cannot be honoured: without wrwroxy, weber forwards only to port {weber}"
        in run.stderr
    )
    assert f"Listening locally on: http://127.0.0.1:{weber}{PREFIX}" in run.stdout
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}mcp") == (["add"], "5")
