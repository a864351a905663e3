"""A record's ``result_digest`` is the SHA-256 of the result (without ``_meta``) as the wire writes it,
whether the digest was stored (a result too large to keep) or is computed from the kept text when the
record is read (docs/how-to/provenance.md): through a real server and its SQLite records."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.provenance import result_text
from nanohubmcp.server.provenance.records import record_id_of


def wire_digest(result: dict[str, object]) -> str:
    body = {key: value for key, value in result.items() if key != "_meta"}
    return "sha256:" + hashlib.sha256(jsonenc.dumpb(body)).hexdigest()


def test_a_kept_and_a_large_result_read_their_wire_digest(tmp_path: Path) -> None:
    server = MCPServer("digests", state_dir=str(tmp_path))

    @server.tool()
    def text(size: int) -> str:
        """Text of ``size`` characters, not all ASCII."""
        return ("Grüße " * (size // 6 + 1))[:size]

    digests = {}
    server.start(port=0)
    try:
        for size in (10, result_text.MAX_KEPT_RESULT_BYTES + 10):
            result = server.call("text", {"size": size})
            record = server.core.provenance.find(record_id_of(result["_meta"]["io.nanohub/provenance"]))
            assert record is not None
            assert record["result_digest"] == wire_digest(result), size
            digests[size] = record
    finally:
        server.stop()
    small, large = digests.values()
    assert small["result_text"] is not None
    assert large["result_text"] is None
    db = sqlite3.connect(tmp_path / "provenance.sqlite3")
    try:
        stored = dict(db.execute("SELECT id, result_digest FROM calls").fetchall())
    finally:
        db.close()
    assert stored == {small["id"]: None, large["id"]: large["result_digest"]}  # only the large one's is stored
