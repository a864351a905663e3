"""A call its client cancelled whose function still runs when the server is stopped (SIGTERM, Ctrl-C) leaves
its provenance record, ``failed`` with "the server stopped while this call ran": the 2026-07-28 client
closed its POST (closing the response *is* the cancel there), the function does not look and sleeps on.
Real ``nanohubmcp run`` process, a raw 2026-07-28 POST over a socket, a real signal, the records read back
with ``nanohubmcp provenance list``.

Found by a fresh-user trial (trial53 F2): the call had no record at all (a call not cancelled had its
``failed`` one; the same cancelled call without a stop had a ``completed`` one when its function returned).
"""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest
from provenance_rows import provenance_rows
from support import app_server, wait_until

APP = """
import sys, time
from nanohubmcp import MCPServer
server = MCPServer("cancelled")

@server.tool()
def stubborn(ctx) -> str:
    '''Sees its cancel, and sleeps on.'''
    print("stubborn: running", file=sys.stderr, flush=True)
    said = False
    for _ in range(600):
        if ctx.is_cancelled() and not said:
            print("stubborn: cancel seen", file=sys.stderr, flush=True)
            said = True
        time.sleep(0.05)
    return "late"
"""


def _post_and_close(port: int, log: Path) -> None:
    """A 2026-07-28 ``tools/call stubborn``, its connection closed once the function runs."""
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "stubborn", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            f"Mcp-Method: tools/call\r\nMcp-Name: stubborn\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head + body)
        wait_until(lambda: "stubborn: running" in log.read_text(), "the call running", 60)
    wait_until(lambda: "stubborn: cancel seen" in log.read_text(), "the close read as the cancel", 60)


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_cancelled_call_still_running_at_the_stop_is_recorded_as_failed(
    tmp_path: Path, sig: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "app.py").write_text(APP)
    state = tmp_path / "state"
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(state))
    with app_server(tmp_path / "app.py", "--exit-grace", "4", log=tmp_path / "server.log") as served:
        _post_and_close(int(served.url.rsplit(":", 1)[1].strip("/")), served.log)
        served.process.send_signal(sig)
        assert served.process.wait(60) == 0, served.output
        rows = provenance_rows(state, served.output)
    lines = [line for line in rows if " stubborn " in line]
    assert len(lines) == 1, rows
    assert "failed" in lines[0], rows
    assert "the server stopped while this call ran" in lines[0], rows
