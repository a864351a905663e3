"""trial23 F3: on a hub, the status's desktop-client entry named the hub kernel's Python by its path
(``/apps/share64/.../python``), which the user's desktop, where the client runs, does not have. There
the entry is ``python3 -m nanohubmcp bridge <weber URL>``, with a line saying it is for the desktop's
Python into which nanohubmcp is installed; off the hub it keeps the kernel's own Python (see
test_status_shows_the_public_url)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from kernels import LiveKernel, server_url

pytestmark = pytest.mark.slow

TOOL = "%%mcp_tool\ndef ping_back(text: str) -> str:\n    '''Return the text.'''\n    return text\n"


def bridged_tools(entry: dict[str, Any], url: str, desktop_bin: Path) -> list[str]:
    """The entry started as a desktop client starts it (the command looked up on a bare PATH: here one
    whose python3 has nanohubmcp, as a desktop's after installing it), bridging to ``url``."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {"PATH": str(desktop_bin), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(command=entry["command"], args=[*entry["args"][:-1], url], env=env)

    async def listed() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    return anyio.run(listed)


def test_the_desktop_entry_of_a_hub_notebook_runs_the_desktops_python3(start_kernel: Any, tmp_path: Path) -> None:
    session_dir = tmp_path / "session"
    session_dir.mkdir()
    (session_dir / "resources").write_text(
        'hub_url "https://nanohub.org"\nfilexfer_port 38123\nfilexfer_cookie c00kie\n', encoding="utf-8"
    )
    live: LiveKernel = start_kernel(SESSION="4242", SESSIONDIR=str(session_dir), JPY_SESSION_NAME="demo.ipynb")
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    shown = live.run_ok(TOOL)
    public = server_url(live)
    port = re.fullmatch(r"https://proxy\.nanohub\.org/weber/4242/c00kie/123/proxy/(\d+)/mcp", public)
    assert port, public
    text = live.run_ok("%mcp status").text
    config = text.split("Client configuration (desktop clients, via nanohubmcp bridge):", 1)[1]
    config = config.split("Python client", 1)[0]
    body = "\n".join(line[2:] for line in config.splitlines() if line.startswith("  "))
    entry = json.loads(body[: body.rindex("}") + 1])["mcpServers"]["demo"]
    assert entry == {"command": "python3", "args": ["-m", "nanohubmcp", "bridge", public]}
    kernel_python = live.run_ok("import sys; print(sys.executable)").stdout.strip()
    assert kernel_python not in text
    assert "\n  This entry is for your desktop: its python3 is the Python you install nanohubmcp into there" in text
    html = next(bundle["text/html"] for bundle in shown.results if "text/html" in bundle)
    assert '"command": "python3"' in html.replace("&quot;", '"')
    assert "This entry is for your desktop" in html
    # The entry as a desktop runs it (its python3 with nanohubmcp installed), to the server's local URL.
    desktop_bin = tmp_path / "desktop-bin"
    desktop_bin.mkdir()
    (desktop_bin / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # this venv's, by name
    (desktop_bin / "python3").chmod(0o755)
    assert bridged_tools(entry, f"http://127.0.0.1:{port.group(1)}/mcp", desktop_bin) == ["ping_back"]
