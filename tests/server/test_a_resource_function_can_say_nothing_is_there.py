"""A resource (template) function that finds nothing at its URI raises
``nanohubmcp.ResourceNotFound``: the client gets "not found" — -32002 in the handshake era,
-32602 in 2026-07-28 — with the function's message and the URI, not -32603 "the server failed".
Any other exception stays -32603 with its message.

Source: MCP 2025-11-25, Server § Resources § Error Handling (resource not found: -32002);
2026-07-28 uses -32602 for it. Found by a new user reading a Sim2L run's missing file.
"""

from __future__ import annotations

from modern.modern_wire import Wire as ModernWire
from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer, ResourceNotFound


def build() -> MCPServer:
    server = MCPServer("lookup")

    @server.resource("runs://{run}/{name}")
    def run_file(run: str, name: str) -> str:
        if run != "r1":
            raise ResourceNotFound(f"there is no run {run!r}")
        if name == "boom":
            raise RuntimeError("the disk went away")
        return f"{name} of {run}"

    return server


def test_not_found_is_32002_with_the_message_and_the_uri() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        found = wire.request("resources/read", {"uri": "runs://r1/a.txt"}, session)
        assert found["result"]["contents"][0]["text"] == "a.txt of r1", found
        missing = wire.request("resources/read", {"uri": "runs://r9/a.txt"}, session)
        assert missing["error"] == {"code": -32002, "message": "there is no run 'r9'",
                                    "data": {"uri": "runs://r9/a.txt"}}, missing
        broken = wire.request("resources/read", {"uri": "runs://r1/boom"}, session)
        assert broken["error"]["code"] == -32603, broken
        assert "the disk went away" in broken["error"]["message"], broken


def test_not_found_is_32602_in_2026_07_28() -> None:
    with serve(build()) as url:
        error = ModernWire(url + "mcp").call("resources/read", {"uri": "runs://r9/a.txt"}).error
        assert error["code"] == -32602, error
        assert error["message"] == "there is no run 'r9'", error
