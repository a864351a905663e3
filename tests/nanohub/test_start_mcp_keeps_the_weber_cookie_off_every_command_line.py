"""In a hub session start_mcp hands the app its weber path and public URL in its environment, as it hands
the token: both hold the session's secret proxy cookie, and ``ps`` shows a command line to every user
(trial21 F5: the child ran with ``--path-prefix /weber/4242/<cookie>/18/ --public-url https://…/<cookie>/…``).
No process start_mcp starts shows the cookie in ``/proc/<pid>/cmdline``; the app still serves the weber
path and advertises the weber URL."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, call_add, cmdline, free_port

pytestmark = pytest.mark.slow

COOKIE = "c00kie"  # hub.resources()'s filexfer_cookie
WEBER_URL = f"https://proxy.hub.example.org/weber/4242/{COOKIE}/123/"
PREFIX = f"/weber/4242/{COOKIE}/123/"
Start = Callable[..., Launch]


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *descendants(int(child))]
    return found


def environ(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def test_without_wrwroxy_the_app_gets_the_weber_path_in_its_environment(hub: Hub, launch: Start) -> None:
    hub.resources()
    weber = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber)])
    assert run.wait_for("MCP Server ready!"), run.stderr
    (child,) = descendants(run.proc.pid)
    assert "nanohubmcp.nanohub.child" in cmdline(child)
    assert COOKIE not in cmdline(child), cmdline(child)
    assert COOKIE not in cmdline(run.proc.pid)
    assert f"NANOHUBMCP_CHILD_PATH_PREFIX={PREFIX}".encode() in environ(child)
    assert f"MCP Server ready! Access it at: {WEBER_URL}" in run.stdout
    # it serves the weber path, and its documents name the weber URL
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}mcp") == (["add"], "5")
    with urllib.request.urlopen(f"http://127.0.0.1:{weber}{PREFIX}.well-known/mcp.json", timeout=30) as response:
        assert WEBER_URL in json.dumps(json.loads(response.read()))


def test_with_wrwroxy_no_process_shows_the_public_url(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    weber, app_port = free_port(), free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", str(app_port)])
    assert run.wait_for("MCP Server ready!"), run.stderr
    started = descendants(run.proc.pid)
    assert len(started) >= 2  # the app, and wrwroxy (bash exec'd into it)
    for pid in started:
        assert COOKIE not in cmdline(pid), cmdline(pid)
    (child,) = (pid for pid in started if "nanohubmcp.nanohub.child" in cmdline(pid))
    assert f"NANOHUBMCP_CHILD_PUBLIC_URL={WEBER_URL}".encode() in environ(child)
    assert call_add(f"http://127.0.0.1:{weber}/mcp") == (["add"], "5")
