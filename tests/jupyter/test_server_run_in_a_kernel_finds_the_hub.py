"""``server.run()`` in a notebook on a hub advertises the weber route to its port, like %%mcp_tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.jupyter.hub import detect_hub
from nanohubmcp.jupyter.kernel_server import _status, run_in_kernel


def test_run_in_kernel_on_a_hub_serves_the_weber_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "resources").write_text(
        'hub_url "https://hub.test"\nfilexfer_port 42123\nfilexfer_cookie c00kie\n')
    monkeypatch.setenv("SESSION", "4242")
    monkeypatch.setenv("SESSIONDIR", str(tmp_path))
    monkeypatch.setenv("JPY_PARENT_PID", "1")
    server = MCPServer("hub")
    try:
        run_in_kernel(server, port=0, quiet=True)
        assert server.url == f"https://proxy.hub.test/weber/4242/c00kie/123/proxy/{server.port}/"
        status = _status(server, "127.0.0.1", detect_hub(server.port))
        assert status["hub"] is True
        assert status["public_url"] == server.url
        assert status["local_url"] == f"http://127.0.0.1:{server.port}/"
    finally:
        server.stop()


def test_off_hub_it_stays_local(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR"):
        monkeypatch.delenv(name, raising=False)
    server = MCPServer("local")
    try:
        run_in_kernel(server, port=0, quiet=True)
        assert server.url == f"http://127.0.0.1:{server.port}/"
    finally:
        server.stop()
