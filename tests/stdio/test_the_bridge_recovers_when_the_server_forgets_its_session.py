"""``nanohubmcp bridge`` keeps a desktop client working when the HTTP server forgets its session —
the server restarted (a notebook kernel restart, a relaunched tool) or the session expired: it
opens a new session with the client's own ``initialize`` and retries the request, as MCP
2025-11-25, Transports § Session Management asks of a client that gets 404 for its
``Mcp-Session-Id``. And a line over the bridge's limit gets an error the client sees."""

from __future__ import annotations

import json
import subprocess

import pytest
from stdio_support import FEATURES_APP, bridge_command, official_client

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_a_call_after_the_server_restarted_opens_a_new_session_and_succeeds() -> None:
    from nanohubmcp.nanohub.child import load_app

    server = load_app(FEATURES_APP)
    server.start(host="127.0.0.1", port=0)
    port = server.port
    try:
        async with official_client(bridge_command(f"{server.url}mcp")) as session:
            assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"
            server.stop()
            server = load_app(FEATURES_APP)
            server.start(host="127.0.0.1", port=port)
            assert (await session.call_tool("add", {"a": 1, "b": 1})).content[0].text == "2.0"
            assert (await session.call_tool("add", {"a": 2, "b": 2})).content[0].text == "4.0"
            assert len(list(server.core.sessions.all())) == 1
    finally:
        server.stop()


def test_a_line_over_the_limit_is_answered_with_an_error() -> None:
    from nanohubmcp.transports.bridge import MAX_LINE_BYTES

    too_long = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * MAX_LINE_BYTES}})
    done = subprocess.run(
        bridge_command("http://127.0.0.1:9/mcp"),
        input=too_long.encode() + b"\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    reply = json.loads(done.stdout.decode().splitlines()[0])
    assert reply["id"] == 1  # read from the line's first bytes
    assert reply["error"]["code"] == -32600
    assert f"the limit is {MAX_LINE_BYTES} bytes per line" in reply["error"]["message"]
