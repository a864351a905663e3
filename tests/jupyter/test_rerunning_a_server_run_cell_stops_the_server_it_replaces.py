"""Re-running a ``server.run()`` cell with another port stops the old server of that name; others keep serving."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from kernels import LiveKernel, run_async
from support import mcp_client

pytestmark = pytest.mark.slow

SCRIPT = '''
from nanohubmcp import MCPServer

server = MCPServer("{name}")

@server.tool()
def greet(who: str) -> str:
    return "{greeting}, " + who

{serve}
'''


def greet(port: int) -> str:
    async def call() -> str:
        async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client:
            return str((await client.call_tool("greet", {"who": "Ada"})).content[0].text)

    return run_async(call())


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


def serve(live: LiveKernel, name: str, greeting: str, serve: str = "server.run(port=0)") -> int:
    live.run_ok(SCRIPT.format(name=name, greeting=greeting, serve=serve))
    return int(live.run_ok("print(server.port)").stdout)


def test_a_rerun_on_a_new_port_stops_the_same_named_server_on_the_old_one(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    first = serve(live, "demo", "Hello")
    second = serve(live, "demo", "Howdy")
    assert second != first
    assert refused(first)
    assert greet(second) == "Howdy, Ada"


def test_servers_of_other_names_and_started_ones_keep_serving(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    other = serve(live, "other", "Hi")
    started = serve(live, "demo", "Hey", serve="server.start(port=0)")
    latest = serve(live, "demo", "Howdy")
    assert greet(other) == "Hi, Ada"
    assert greet(started) == "Hey, Ada"
    assert greet(latest) == "Howdy, Ada"
