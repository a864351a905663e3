"""The log line of a result JSON cannot hold names a middleware as its cause only once the application installed
one; before that nothing but the server can have made it, and the line says to report it.

trial42 T42-1: bytes in a tool's title made every tools/list -32603 and the log said "a middleware must return
JSON values" on a server with no middleware. Run in a fresh interpreter: whether a middleware was added is
the process's (as the value converters a middleware turns on are).
"""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import asyncio, logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.ERROR, format="LOG %(message)s")
from nanohubmcp import MCPServer
from nanohubmcp.protocol.sendable import received
from nanohubmcp.testing import in_memory

print(received({"jsonrpc": "2.0", "id": 1, "result": {"x": b"x"}})["error"]["code"])
server = MCPServer("m")

@server.tool()
def one() -> int:
    "One."
    return 1

@server.middleware
async def bad(request, call_next):
    result = await call_next(request)
    return {**result, "x-tags": {1, 2}} if request.method == "tools/list" else result

with in_memory(server) as client:
    try:
        client.list_tools()
    except Exception as exc:
        print("ERROR", exc)
"""


def test_the_cause_logged_follows_whether_a_middleware_is_installed() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    logged = [line for line in lines if line.startswith("LOG ")]
    assert lines[0] == "LOG the result for request 1 cannot be written as JSON (Object of type bytes is not JSON " \
                       "serializable); answered -32603: no middleware is installed, so the server made it: please " \
                       "report this as a bug of nanohubmcp, with the log line"
    assert lines[1] == "-32603"
    assert len(logged) == 2
    assert logged[1].endswith("answered -32603: a middleware must return JSON values (numbers, text, lists, dicts)")
    assert "set" in logged[1]
    assert lines[-1].startswith("ERROR -32603")
