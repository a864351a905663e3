"""A notebook's server started with the defaults requires a token generated at start (loopback
is not private on a shared login node): ``%mcp token`` shows it (the status does not: a cell's
output is saved with the notebook), the Python snippet reads it from ``$MCP_TOKEN`` and the
bridge configuration has a place for it, both working once it is given, and a client without
it gets 401."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.slow

DEFAULTS = "import os\nos.environ.pop('MCP_TOKEN', None)"  # the test session sets MCP_TOKEN=""


def bridge_tools(entry: dict[str, Any]) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = str(Path(sys.executable).parent / entry["command"])  # the venv's console script
    params = StdioServerParameters(command=command, args=entry["args"], env={**os.environ, **entry["env"]})

    async def listed() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    return anyio.run(listed)


def test_the_default_server_shows_its_token_and_refuses_a_client_without_it(start_kernel: Any) -> None:
    kernel = start_kernel()
    kernel.run_ok(DEFAULTS)
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    kernel.run_ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b")
    text = kernel.run_ok("%mcp status").text
    assert "%mcp token shows it" in text
    token = re.match(r"(\S+)\n\(shown until the next cell runs", kernel.run_ok("%mcp token").text)
    assert token is not None
    assert len(token.group(1)) >= 32
    assert token.group(1) not in text
    url = re.search(r"MCP endpoint: (\S+)", text)
    assert url is not None, text
    # Without the token: 401 naming the metadata document.
    request = urllib.request.Request(url.group(1), data=b"{}", headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert "resource_metadata=" in refused.value.headers["WWW-Authenticate"]
    # The Python snippet, pasted as shown, lists the tools.
    snippet = text.split("Python client (official SDK):", 1)[1]
    code = "\n".join(line[2:] for line in snippet.splitlines() if line.startswith("  ") or not line.strip())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MCP_TOKEN": token.group(1)})
    assert done.returncode == 0, done.stderr
    assert "['add']" in done.stdout
    # The stdio bridge configuration has the token's place in its environment.
    config = text.split("Client configuration (desktop clients, via nanohubmcp bridge):", 1)[1]
    config = config.split("Python client", 1)[0]
    entry = json.loads("\n".join(line[2:] for line in config.splitlines() if line.strip()))
    server = next(iter(entry["mcpServers"].values()))
    assert server["env"]["MCP_TOKEN"] == "<the token %mcp token shows>"
    assert server["args"] == ["-m", "nanohubmcp", "bridge", url.group(1)]  # the kernel's Python runs it
    assert os.path.isabs(server["command"])
    server["env"]["MCP_TOKEN"] = token.group(1)
    # ... and the bridge started as configured lists the tools (the official SDK over its stdio).
    assert bridge_tools(server) == ["add"]


def test_token_empty_turns_authorization_off_with_a_warning(start_kernel: Any) -> None:
    kernel = start_kernel()
    kernel.run_ok(DEFAULTS)
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n%config NanohubMCP.token = ''")
    cell = kernel.run_ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    return a + b")
    assert "warning" in kernel.text(cell)
    assert "NanohubMCP.token is ''" in kernel.text(cell)
    text = kernel.run_ok("%mcp status").text
    assert "Token:      none" in text
    url = re.search(r"Base URL:\s+(\S+)", text)
    assert url is not None
    with urllib.request.urlopen(url.group(1), timeout=10) as response:
        assert response.status == 200


def test_an_empty_mcp_token_turns_authorization_off_with_a_warning_naming_it(start_kernel: Any) -> None:
    kernel = start_kernel()  # the test session's kernels inherit MCP_TOKEN="" (tests/conftest.py)
    kernel.run_ok("import os\nos.environ['MCP_TOKEN'] = ''")
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    cell = kernel.run_ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    return a + b")
    assert "warning: MCP_TOKEN is set but empty - " in kernel.text(cell)  # it blamed NanohubMCP.token (trial12)
    assert "NanohubMCP.token is ''" not in kernel.text(cell)
    assert "Token:      none" in kernel.run_ok("%mcp status").text


def test_server_run_in_a_notebook_requires_a_generated_token_kept_across_reruns(start_kernel: Any) -> None:
    kernel = start_kernel()
    kernel.run_ok(DEFAULTS)
    cell = (
        "from nanohubmcp import MCPServer\nserver = MCPServer('scripted')\n"
        "@server.tool()\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b\n"
        "server.run(port=0)"
    )
    first = kernel.run_ok(cell).text
    assert "print(server.token) shows it" in first
    token = re.match(r"(\S+)$", kernel.run_ok("print(server.token)").text.strip())
    assert token is not None
    assert token.group(1) not in first
    url = re.search(r"Base URL:\s+(\S+)", first)
    assert url is not None
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url.group(1), timeout=10)
    assert refused.value.code == 401
    authorized = urllib.request.Request(url.group(1), headers={"Authorization": f"Bearer {token.group(1)}"})
    with urllib.request.urlopen(authorized, timeout=10) as response:
        assert response.status == 200
    kernel.run_ok(cell)
    assert kernel.run_ok("print(server.token)").text.strip() == token.group(1)  # re-running keeps clients working
    kernel.run_ok("server.stop()")
