"""A request whose id a request still in progress has is refused at once with -32600 (trial53 F9): over stdio
the second ``tools/call`` with id 1 was served beside the first, both answers carried ``"id": 1`` and a
``notifications/cancelled`` naming 1 cancelled one of them silently. MCP Basic: a request's id MUST NOT have been
used before by its sender in the same session. Once the first is answered the id may be used again. The same
holds over Streamable HTTP within one session."""

from __future__ import annotations

import queue
import textwrap
import threading
from pathlib import Path
from typing import Any

from streams.stream_wire import Wire
from support import serve, stdio_lines, wait_until

from nanohubmcp import MCPServer

APP = textwrap.dedent('''
    import threading
    from nanohubmcp import MCPServer

    server = MCPServer("ids")
    gate = threading.Event()

    @server.tool()
    def hold(seconds: float) -> str:
        """Wait until released (or seconds)."""
        gate.wait(seconds)
        return "held"

    @server.tool()
    def release() -> str:
        """Release the held call."""
        gate.set()
        return "released"

    server.run(transport="stdio")
''')

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def next_message(lines: queue.Queue[Any]) -> dict[str, Any]:
    while True:
        message = lines.get(timeout=30)
        if "id" in message:
            return message


def call(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_over_stdio_an_id_in_progress_is_refused_and_free_again_once_answered(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with stdio_lines(app) as (send, lines):
        send(INIT)
        assert next_message(lines)["id"] == "init"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(call(1, "hold", {"seconds": 60}))
        send(call(1, "hold", {"seconds": 0}))  # the same id while the first is held
        refused = next_message(lines)
        assert refused["id"] == 1
        assert refused["error"]["code"] == -32600
        assert refused["error"]["message"] == ("Request id 1 is already in use by a request in progress; "
                                               "give each request an id of its own")
        send(call(2, "release", {}))
        answers = {next_message(lines)["id"]: None for _ in range(2)}
        assert set(answers) == {1, 2}  # the held call answered, once
        send(call(1, "hold", {"seconds": 0}))  # answered: the id is free again
        again = next_message(lines)
        assert again["id"] == 1
        assert again["result"]["content"][0]["text"] == "held"
        assert lines.empty()


def test_over_http_an_id_in_progress_in_the_session_is_refused() -> None:
    server = MCPServer("ids-http")
    gate = threading.Event()

    @server.tool()
    def hold(seconds: float) -> str:
        """Wait until released (or seconds)."""
        gate.wait(seconds)
        return "held"

    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        call_id, stream = wire.stream_call("tools/call", {"name": "hold", "arguments": {"seconds": 60}}, session)
        try:
            wait_until(lambda: any(r.message.id == call_id for r in list(server.core.in_flight)), "the first call held")
            refused = wire.request("tools/call", {"name": "hold", "arguments": {"seconds": 0}}, session,
                                   id=call_id)
            assert refused["error"]["code"] == -32600
            assert "already in use by a request in progress" in refused["error"]["message"]
        finally:
            gate.set()
        _, final = stream.until(lambda m: m.get("id") == call_id)
        assert final["result"]["content"][0]["text"] == "held"
        stream.close()
