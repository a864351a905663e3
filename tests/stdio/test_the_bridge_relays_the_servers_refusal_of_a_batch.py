"""A batch the HTTP server refuses with a JSON-RPC error (a batch in a protocol version without batches, an empty
batch) reaches the bridge's client as that error, as a stdio server answers the same line (fresh-user trial 75 F6:
the bridge wrote it on stderr only, and the client waited for its ids until its own timeout).

A real ``nanohubmcp bridge`` before a real served script; the client's lines are written and closed at once."""

from __future__ import annotations

import json
import subprocess

import pytest
from stdio_support import FEATURES_APP, bridge_command, served

pytestmark = pytest.mark.timeout(120)


def _init(version: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


@pytest.mark.parametrize(("version", "batch", "words"), [
    ("2025-06-18", [{"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"jsonrpc": "2.0", "id": 4, "method": "ping"}],
     "batches are not part of protocol"),
    ("2025-03-26", [], "empty batch"),
])
def test_a_refused_batch_is_answered_with_the_servers_error(version: str, batch: list[object], words: str) -> None:
    lines = [_init(version), {"jsonrpc": "2.0", "method": "notifications/initialized"}, batch,
             {"jsonrpc": "2.0", "id": 9, "method": "ping"}]
    with served(FEATURES_APP) as url:
        done = subprocess.run(bridge_command(url + "mcp"), input="".join(json.dumps(line) + "\n" for line in lines)
                              .encode(), capture_output=True, timeout=90, check=False)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [reply for reply in replies if isinstance(reply, dict) and "error" in reply]
    assert len(errors) == 1, (replies, done.stderr.decode())  # before: none (stderr only)
    assert errors[0]["id"] is None, errors
    assert errors[0]["error"]["code"] == -32600, errors
    assert words in errors[0]["error"]["message"], errors
    assert any(isinstance(reply, dict) and reply.get("id") == 9 for reply in replies), replies  # serving on
