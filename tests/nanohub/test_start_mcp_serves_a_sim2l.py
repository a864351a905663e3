"""``start_mcp --sim2l NOTEBOOK`` serves a Sim2L with no app file (beside ``--rappture`` tools too): the
launcher runs the package's own app file in its child, which registers them; the official client lists
them. ``--app`` with tools, or neither, and a missing notebook are usage errors before anything starts.
Issue 24."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest
from nanohub_standins import Hub, Launch, free_port

pytestmark = pytest.mark.slow
pytest.importorskip("papermill")

TESTS = Path(__file__).parents[1]
NOTEBOOK = TESTS / "sim2l" / "data" / "allkinds" / "allkinds.ipynb"
FERMI = TESTS / "rappture" / "tools" / "fermi" / "tool.xml"


async def _tools(url: str) -> dict[str, Any]:
    from support import mcp_client

    async with mcp_client(url) as client:
        return {t.name: t for t in (await client.list_tools()).tools}


def test_start_mcp_serves_a_sim2l_beside_a_rappture_tool(hub: Hub, launch: Any) -> None:
    port = free_port()
    arguments = ["--sim2l", str(NOTEBOOK), "--rappture", str(FERMI), "--host", "127.0.0.1", "--port", str(port)]
    run: Launch = launch(arguments, hub.env(session=False))
    assert run.wait_for("MCP Server ready!", timeout=90), run.stderr
    tools = asyncio.run(asyncio.wait_for(_tools(f"http://127.0.0.1:{port}/mcp"), 60))
    assert sorted(tools) == ["allkinds", "fermi"]
    assert tools["allkinds"].input_schema["properties"]["material"]["enum"] == ["Si", "Ge", "GaAs"]
    run.proc.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 128 + signal.SIGTERM, run.stderr


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--sim2l", "nothing.ipynb"], "Sim2L notebook 'nothing.ipynb' does not exist"),
        (["--app", "app.py", "--sim2l", str(NOTEBOOK)], "not both"),
        # "not both" when nothing was given, found by a fresh-user trial
        ([], "give an app file (--app FILE), or tools to serve (--rappture PATH, --sim2l NOTEBOOK)\n"),
    ],
)
def test_what_start_mcp_cannot_serve_is_a_usage_error(
    hub: Hub, launch: Any, arguments: list[str], message: str
) -> None:
    run: Launch = launch(arguments, hub.env(session=False))
    assert run.wait(timeout=30) == 2
    assert message in run.stderr
