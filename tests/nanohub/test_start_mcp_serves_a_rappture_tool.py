"""``start_mcp --rappture TOOL.xml`` serves a Rappture tool with no app file: the launcher runs the
package's own app file in its child, which registers the tool; the official client lists and calls
it; a missing tool.xml is a usage error before anything starts. Issue 24."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest
from nanohub_standins import Hub, Launch, free_port

pytestmark = pytest.mark.slow
pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi" / "tool.xml"


async def _call(url: str) -> tuple[list[str], Any]:
    from support import mcp_client

    async with mcp_client(url) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("fermi", {"temperature": "77K", "points": 11})
        return names, result


def test_start_mcp_serves_a_rappture_tool_without_an_app_file(hub: Hub, launch: Any) -> None:
    port = free_port()
    run: Launch = launch(["--rappture", str(FERMI), "--host", "127.0.0.1", "--port", str(port)], hub.env(session=False))
    assert run.wait_for("MCP Server ready!", timeout=60), run.stderr
    names, result = asyncio.run(asyncio.wait_for(_call(f"http://127.0.0.1:{port}/mcp"), 60))
    assert names == ["fermi"]
    assert not result.is_error, result.content
    assert result.structured_content["outputs"]["kT"]["value"] == pytest.approx(8.617333262e-5 * 77)
    run.proc.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 128 + signal.SIGTERM, run.stderr


def test_a_missing_tool_xml_is_a_usage_error(hub: Hub, launch: Any) -> None:
    run: Launch = launch(["--rappture", str(hub.root / "nothing.xml")], hub.env(session=False))
    assert run.wait(timeout=30) == 2
    assert "Rappture tool" in run.stderr
    assert "does not exist" in run.stderr


def test_the_app_file_refuses_a_description_it_cannot_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.errors import ConfigurationError, RegistrationError
    from nanohubmcp.hub_app import build_server
    from nanohubmcp.nanohub.child import PACKAGE_DIR, SOURCES_ENV, load_app

    server = build_server([{"kind": "rappture", "path": str(FERMI), "name": "f2", "background": True}])
    record = server.core.registry.tools.get("f2")
    assert record is not None
    assert record.background
    with pytest.raises(ConfigurationError, match="unknown kind 'matlab'"):
        build_server([{"kind": "matlab", "path": "x.m"}])
    with pytest.raises(ConfigurationError, match="without a path"):
        build_server([{"kind": "rappture"}])
    with pytest.raises(ConfigurationError, match="no tools to serve"):
        build_server([])
    with pytest.raises(RegistrationError, match="no such file"):
        build_server([{"kind": "rappture", "path": "missing.xml"}])
    monkeypatch.setenv(SOURCES_ENV, "[not json")
    with pytest.raises(ConfigurationError, match="is not JSON"):
        load_app(PACKAGE_DIR / "hub_app.py")
