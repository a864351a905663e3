"""``nanohubmcp desktop-config`` prints an entry that a desktop client can launch as it is: from ``/``,
with a bare environment (no virtual environment on PATH), the official stdio client serves the app.
The ``--url`` form bridges to a running, token-protected server with the token in ``env``."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from stdio_support import EXAMPLES, ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

APP = EXAMPLES / "simple" / "start_mcp.py"


def printed(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "desktop-config", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(out.stdout)  # nothing but the JSON on stdout


async def call_add(entry: dict[str, Any]) -> str:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    bare = {"PATH": "/usr/bin:/bin", **entry.get("env", {})}  # what a desktop client hands its children
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=bare, cwd="/")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text


@pytest.mark.parametrize(("client", "key"), [("claude", "mcpServers"), ("cursor", "mcpServers"), ("vscode", "servers")])
async def test_the_printed_entry_serves_the_app_from_the_root_directory(client: str, key: str) -> None:
    relative = APP.relative_to(ROOT)  # as a user types it in the checkout
    document = printed(str(relative), "--client", client)
    ((name, entry),) = document[key].items()
    assert name == "calculator-server" or name  # the server's own name
    assert entry["args"][-4:] == ["run", str(APP.resolve()), "--transport", "stdio"]
    assert entry["command"].startswith("/")
    if client == "vscode":
        assert entry["type"] == "stdio"
    assert await call_add(entry) == "5.0"


async def test_the_url_form_bridges_to_a_running_server_with_its_token() -> None:
    from support import serve

    from nanohubmcp import MCPServer

    server = MCPServer("guarded")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    with serve(server, token="s3cret-token") as url:
        document = printed("--url", url + "mcp", "--token", "s3cret-token", "--name", "guarded")
        entry = document["mcpServers"]["guarded"]
        assert "s3cret-token" not in entry["args"]  # the token stays out of the process list
        assert entry["env"] == {"MCP_TOKEN": "s3cret-token"}
        assert await call_add(entry) == "5.0"


def test_neither_or_both_of_app_and_url_is_a_clear_error() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "desktop-config"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2  # a usage error, as argparse's own
    assert "give an app file" in out.stderr
    assert "not both" not in out.stderr  # neither was given


@pytest.mark.parametrize("url", ["not a url", "ftp://host/mcp", "http://", "localhost:8000", "http://h:99999/mcp"])
def test_a_url_that_is_not_an_http_url_is_refused_when_printed(url: str) -> None:
    # A fresh-user trial: 'not a url' was printed into the entry; the mistake surfaced only when the
    # desktop client started the bridge.
    out = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "desktop-config", "--url", url], capture_output=True, text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stdout == ""
    assert f"--url must be an http:// or https:// URL with a host (like http://127.0.0.1:8000/mcp), got {url!r}" \
        in out.stderr
