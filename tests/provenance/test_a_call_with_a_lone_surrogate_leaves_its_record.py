"""A call whose arguments, request id or error hold a lone UTF-16 surrogate (``"\\ud800"``: valid JSON,
with no UTF-8 form) leaves its record like any other: the arguments are stored as JSON text with the
surrogate as its ``\\u`` escape and read back as sent, and so is the error; a request id (a column of text)
keeps the escape as text. The result named a record that was never written, and each such call logged an ERROR traceback
(trial31 S3). A real server over HTTP, the bodies sent as written (a JSON encoder refuses the surrogate)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)

LARGE = 70_000
"""Characters of an argument over the size a record keeps whole (then named by its size and digest)."""


def test_every_call_that_ran_is_recorded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("lone", state_dir=str(tmp_path))

    @server.tool()
    def echo(s: str) -> str:
        """Answer ``s``."""
        return s

    @server.tool()
    def refuse(s: str) -> str:
        """Raise naming ``s``."""
        raise ValueError(f"cannot take {s}")

    calls = [
        ('"\\ud801"', "echo", '{"s":"\\ud800x"}'),
        ("1", "refuse", '{"s":"\\udc00"}'),
        ("2", "echo", '{"s":"\\ud800' + "y" * LARGE + '"}'),
    ]
    uris = []
    with serve(server) as url:
        for request_id, name, arguments in calls:
            body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"{name}",' \
                   f'"arguments":{arguments}}}}}'
            reply = httpx.post(url, content=body.encode(), headers={"Content-Type": "application/json"}, timeout=10)
            uris.append(reply.json()["result"]["_meta"][PROVENANCE_META])
    records = [server.core.provenance.find(uri.rsplit("/", 1)[1]) for uri in uris]
    assert all(record is not None for record in records), records
    sent, refused, large = records
    assert sent["arguments"] == {"s": "\ud800x"}  # type: ignore[index]
    assert sent["request_id"] == "\\ud801"  # type: ignore[index]
    assert refused["arguments"] == {"s": "\udc00"}  # type: ignore[index]
    assert refused["error"] == "cannot take \udc00"  # type: ignore[index]  (JSON in its column: read back as sent)
    marker = large["arguments"]["s"]  # type: ignore[index]
    value_text = json.dumps("\ud800" + "y" * LARGE)  # its JSON text, the surrogate escaped: as hashed
    assert marker.startswith(f"[not stored: {len(value_text)} bytes of JSON, sha256:")
    assert not [r for r in caplog.records if r.name.startswith("nanohubmcp.provenance")]


def test_a_request_id_holding_one_costs_no_other_record(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The records the writer stores in one batch with such a call's are all kept: one request whose id was
    ``"\\udc00"`` made the writer drop its whole batch, other principals' records of that second included
    (trial31 S12)."""
    server = MCPServer("batch", state_dir=str(tmp_path))

    @server.tool()
    def echo(s: str) -> str:
        """Answer ``s``."""
        return s

    uris = []
    with serve(server) as url:
        for request_id in ("1", '"\\udc00"', "2"):
            body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"echo",' \
                   '"arguments":{"s":"a"}}}'
            reply = httpx.post(url, content=body.encode(), headers={"Content-Type": "application/json"}, timeout=10)
            uris.append(reply.json()["result"]["_meta"][PROVENANCE_META])
    records = [server.core.provenance.find(uri.rsplit("/", 1)[1]) for uri in uris]
    assert [record["request_id"] if record else None for record in records] == [1, "\\udc00", 2]
    assert not [r for r in caplog.records if r.name.startswith("nanohubmcp.provenance")]
