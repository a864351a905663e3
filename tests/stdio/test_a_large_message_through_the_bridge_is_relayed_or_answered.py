"""A desktop client's large message through ``nanohubmcp bridge``: up to the HTTP server's own body
limit (16 MiB) it is relayed and answered (a longer one gets -32600 with its id: see
``test_the_bridge_recovers_when_the_server_forgets_its_session``); the id of an over-long line is
read from its first bytes, where clients put it."""

from __future__ import annotations

import json
import subprocess

import pytest
from stdio_support import FEATURES_APP, bridge_command, served

from nanohubmcp.transports.lines import leading_id

pytestmark = pytest.mark.timeout(120)

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def ping(request_id: int, pad_bytes: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping",
                       "params": {"pad": "x" * pad_bytes}}).encode() + b"\n"


def test_a_5_mb_message_is_relayed_and_answered() -> None:
    lines = [json.dumps(INIT).encode() + b"\n",
             b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
             ping(2, 5_000_000), ping(3, 10)]
    with served(FEATURES_APP) as url:
        done = subprocess.run(bridge_command(url + "mcp"), input=b"".join(lines), capture_output=True,
                              timeout=90, check=False)
    replies = {reply.get("id"): reply for reply in map(json.loads, done.stdout.splitlines())}
    assert replies[2]["result"] == {}
    assert replies[3]["result"] == {}


@pytest.mark.parametrize(("head", "expected"), [
    (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"x": "xxxx', 7),
    (b' { "id" : "req-1", "params": {"x": "', "req-1"),
    (b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"x": "xxxx', None),  # id after the cut
    (b'{"jsonrpc": "2.0", "id": 12', None),  # the cut may have taken digits
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"', None),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"', None),
    (b'[{"id": 1, "method": "ping"', None),
    (b"\xff\xfe not json", None),
])
def test_the_id_of_an_over_long_line_is_read_from_its_first_bytes(head: bytes, expected: object) -> None:
    assert leading_id(head) == expected
