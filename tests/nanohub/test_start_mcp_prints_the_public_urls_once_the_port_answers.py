"""In a hub session start_mcp prints the public URLs only once the app's port answers, as nanohub.md says
(trial21 F2: ``Proxy URL : https://proxy…/weber/…`` came before the app listened, and also when the app
then failed to import and start_mcp exited 1)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from nanohub_standins import GATED_APP, GOOD_APP, Hub, Launch, call_add, free_port, wait_for_file

pytestmark = pytest.mark.slow

WEBER_URL = "https://proxy.hub.example.org/weber/4242/c00kie/123/"
PREFIX = "/weber/4242/c00kie/123/"
Start = Callable[..., Launch]


def test_no_url_is_printed_while_the_app_is_still_importing(hub: Hub, launch: Start) -> None:
    hub.resources()
    weber = free_port()
    app = hub.app("gated.py", GATED_APP + GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(weber)])
    wait_for_file(hub.root / "importing", run)
    said = run.stdout  # the app is importing: its port cannot answer yet
    assert "Proxy URL" not in said
    assert "weber" not in said
    (hub.root / "go").touch()
    assert run.wait_for("MCP Server ready!"), run.stderr
    lines = run.stdout.splitlines()  # the app's own banner, then start_mcp's
    ready = lines.index(f"MCP Server ready! Access it at: {WEBER_URL}")
    assert lines[ready - 1] == f"Proxy URL : {WEBER_URL}"
    assert call_add(f"http://127.0.0.1:{weber}{PREFIX}mcp") == (["add"], "5")


def test_an_app_that_fails_to_import_gets_no_url_printed(hub: Hub, launch: Start) -> None:
    hub.resources()
    app = hub.app("broken.py", "import a_module_that_is_not_there\n" + GOOD_APP)
    run = launch(["--app", str(app), "--host", "127.0.0.1", "--weber-port", str(free_port())])
    assert run.wait(timeout=60) == 1
    assert "ModuleNotFoundError" in run.stderr
    assert "Proxy URL" not in run.stdout
    assert "weber" not in run.stdout
    assert hub.survivors() == []
