"""``server.call(name, arguments)`` refuses arguments that are no object as a client's ``tools/call`` is
refused: -32602, whatever their truth value. ``[]``, ``0``, ``False`` and ``""`` were taken as no arguments,
so the tool ran with its defaults where a client got the error, and a notebook test passed that a client
failed (trial41 Q11). ``None`` (the default) is still no arguments, as a JSON ``null`` is on the wire.
A real server, called from the program and over ``/mcp``."""

from __future__ import annotations

import json

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer, ProtocolError

pytestmark = pytest.mark.timeout(60)


def test_what_the_wire_refuses_call_refuses_alike() -> None:
    server = MCPServer("arguments")

    @server.tool()
    def f(k: str = "d") -> str:
        """Answer ``k``."""
        return k

    with serve(server) as url:
        for arguments in ([], 0, False, "", [1], "x"):
            reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                          "params": {"name": "f", "arguments": arguments}},
                               headers={"Accept": "application/json, text/event-stream"}, timeout=10)
            wire = reply.json()["error"]
            with pytest.raises(ProtocolError) as refused:
                server.call("f", arguments)  # type: ignore[arg-type]
            assert (refused.value.code, str(refused.value)) == (wire["code"], wire["message"]), json.dumps(arguments)
            assert wire["code"] == -32602
        assert server.call("f").text == "d"
        assert server.call("f", None).text == "d"
        assert server.call("f", {}).text == "d"
