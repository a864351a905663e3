"""A plain script's ``server.run()`` pasted into a notebook serves in the background and returns."""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, run_async
from support import mcp_client

pytestmark = pytest.mark.slow

SCRIPT = '''
from nanohubmcp import MCPServer

server = MCPServer("plain-script", version="1.0.0")

@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return "{greeting}, " + name

{serve}
print("after run:", server.running)
'''


def call_greet(url: str) -> str:
    async def call() -> str:
        async with mcp_client(url) as client:
            return str((await client.call_tool("greet", {"name": "Ada"})).content[0].text)

    return run_async(call())


def test_server_run_returns_and_serves(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    cell = live.run_ok(SCRIPT.format(greeting="Hello", serve="server.run(port=0)"), timeout=30)
    assert "after run: True" in cell.stdout
    url = live.run_ok("print(server.url)").stdout.strip()
    assert call_greet(url + "mcp") == "Hello, Ada"
    live.run_ok("server.stop()")


def test_rerunning_the_cell_replaces_the_server_on_its_port(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    live.run_ok("from nanohubmcp.jupyter.kernel_server import run_in_kernel")
    live.run_ok(SCRIPT.format(greeting="Hello", serve="run_in_kernel(server, port=0)"))
    live.run_ok("PORT = server.port")
    live.run_ok(SCRIPT.format(greeting="Howdy", serve="run_in_kernel(server, port=PORT)"))
    url = live.run_ok("print(server.url)").stdout.strip()
    assert url.startswith("http://127.0.0.1:")
    assert call_greet(url + "mcp") == "Howdy, Ada"


def test_rerunning_a_server_run_cell_on_a_fixed_port_replaces_the_old_server(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    live.run_ok(SCRIPT.format(greeting="Hello", serve="server.run(port=0)"))
    live.run_ok("PORT = server.port")
    rerun = live.run(SCRIPT.format(greeting="Howdy", serve="server.run(port=PORT)"))
    assert rerun.status == "ok", rerun.evalue
    url = live.run_ok("print(server.url)").stdout.strip()
    assert url.startswith("http://127.0.0.1:")
    assert call_greet(url + "mcp") == "Howdy, Ada"
