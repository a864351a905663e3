"""The status display: local URL off-hub; nanoHUB's weber URL (through jupyter-server-proxy) on a hub."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def ping_back(text: str) -> str:
    """Return the text."""
    return text
'''


def test_off_hub_the_status_shows_local_endpoints_and_a_client_snippet(kernel: LiveKernel) -> None:
    shown = kernel.run_ok(TOOL)
    url = server_url(kernel)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", url)
    html = next(bundle["text/html"] for bundle in shown.results if "text/html" in bundle)
    for fragment in (
        url,
        url.replace("/mcp", "/sse"),
        "/openapi.json",
        "/.well-known/mcp.json",
        "ping_back",
        "nanohubmcp bridge",
        "this machine",
    ):
        assert fragment in html, fragment
    snippet = shown.text[shown.text.index("{") : shown.text.index("Python client")]
    config = json.loads(snippet[: snippet.rindex("}") + 1].replace("\n  ", "\n"))
    # trial21 F4: the entry named a bare `nanohubmcp`, which a desktop client (bare PATH) does not find;
    # it is `nanohubmcp desktop-config --url`'s: the kernel's own Python, by its absolute path.
    python = kernel.run_ok("import sys; print(sys.executable)").stdout.strip()
    assert Path(python).is_absolute()
    assert config["mcpServers"]["notebook"] == {"command": python, "args": ["-m", "nanohubmcp", "bridge", url]}


def test_on_a_hub_the_public_url_is_the_weber_proxy_route(start_kernel: Any, tmp_path: Path) -> None:
    session_dir = tmp_path / "session"
    session_dir.mkdir()
    (session_dir / "resources").write_text(
        'hub_url "https://nanohub.org"\nfilexfer_port 38123\nfilexfer_cookie c00kie\n', encoding="utf-8"
    )
    live: LiveKernel = start_kernel(
        SESSION="4242", SESSIONDIR=str(session_dir), JPY_SESSION_NAME="demo.ipynb"
    )
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    shown = live.run_ok(TOOL)
    public = server_url(live)
    match = re.fullmatch(r"https://proxy\.nanohub\.org/weber/4242/c00kie/123/proxy/(\d+)/mcp", public)
    assert match, public
    assert "nanoHUB proxy" in next(b["text/html"] for b in shown.results if "text/html" in b)
    assert "MCP server 'demo'" in shown.text  # the notebook's name names the server
    local = f"http://127.0.0.1:{match.group(1)}/mcp"
    assert f"Local URL:  http://127.0.0.1:{match.group(1)}/" in shown.text

    async def call() -> str:
        async with mcp_client(local) as client:
            return str((await client.call_tool("ping_back", {"text": "via loopback"})).content[0].text)

    assert run_async(call()) == "via loopback"
