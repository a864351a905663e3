"""With ``SESSION`` set but a session start_mcp cannot use (``$SESSIONDIR/resources`` empty, or lacking a key),
start_mcp says so when it starts, in one line naming what is missing and that it serves as off the hub, where
weber cannot reach it (trial21 F3: it named the missing keys without saying what that meant, and the page
did not say what the file holds)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from nanohub_standins import GATED_APP, GOOD_APP, Hub, Launch, call_add, free_port, wait_for_file

pytestmark = pytest.mark.slow

Start = Callable[..., Launch]


@pytest.mark.parametrize(
    ("resources", "missing"),
    [
        ("", "hub_url, filexfer_port, filexfer_cookie"),
        ("hub_url https://nanohub.org\nfilexfer_port 8018\n", "filexfer_cookie"),
    ],
    ids=["empty", "no-cookie"],
)
def test_an_unusable_session_is_named_before_the_app_serves(hub: Hub, launch: Start, resources: str,
                                                            missing: str) -> None:
    (hub.sessiondir / "resources").write_text(resources)
    port = free_port()
    app = hub.app("gated.py", GATED_APP + GOOD_APP)
    run = launch(["--app", str(app), "--port", str(port)])
    wait_for_file(hub.root / "importing", run)
    assert run.stderr.splitlines()[0] == (
        f"start_mcp: {hub.sessiondir / 'resources'} has no {missing}; serving as off the hub, on "
        f"127.0.0.1:{port} only, where the hub's weber proxy cannot reach it"
    )
    (hub.root / "go").touch()
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "Proxy URL" not in run.stdout
    assert call_add(f"http://127.0.0.1:{port}/mcp") == (["add"], "5")


def test_off_the_hub_nothing_is_said_about_a_session(hub: Hub, launch: Start) -> None:
    port = free_port()
    run = launch(["--app", str(hub.app("app.py", GOOD_APP)), "--port", str(port)], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "serving as off the hub" not in run.stderr
