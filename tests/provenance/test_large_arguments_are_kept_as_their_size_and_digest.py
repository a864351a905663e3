"""A record keeps at most 64 KiB of arguments: larger values are named by their size and digest.

Found by a fresh-user trial: every call's arguments were stored verbatim for an hour (a 14 MiB
string per record), so one client could fill the state directory's disk at tens of MB a second.
Through a real server, the official ``mcp`` client and the store's SQLite file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from clients import official
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.anyio
TOKEN = "token-of-carol"
META = "io.nanohub/provenance"
LIMIT = 64 * 1024


async def test_a_megabyte_argument_is_stored_as_its_size_and_digest(tmp_path: Path) -> None:
    server = MCPServer("bounded", auth=StaticTokenVerifier({TOKEN: "carol"}), state_dir=tmp_path)

    @server.tool()
    def measure(label: str, samples: list[float], note: str = "") -> int:
        """How many samples."""
        return len(samples)

    samples = [i / 7 for i in range(100_000)]  # ~1.9 MB of JSON
    with serve(server) as url:
        async with official(url, TOKEN) as session:
            result = await session.call_tool("measure", {"label": "run 7", "samples": samples, "note": "é" * 100})
            assert not result.is_error
            read = await session.read_resource(result.meta[META])
            record: dict[str, Any] = json.loads(read.contents[0].text)
            small = await session.call_tool("measure", {"label": "tiny", "samples": [1.5]})
            tiny: dict[str, Any] = json.loads((await session.read_resource(small.meta[META])).contents[0].text)

    value_text = json.dumps(samples, separators=(",", ":"))
    digest = "sha256:" + hashlib.sha256(value_text.encode()).hexdigest()
    assert record["arguments"]["label"] == "run 7"
    assert record["arguments"]["note"] == "é" * 100
    assert record["arguments"]["samples"] == f"[not stored: {len(value_text)} bytes of JSON, {digest}]"
    assert tiny["arguments"] == {"label": "tiny", "samples": [1.5]}

    with sqlite3.connect(tmp_path / "provenance.sqlite3") as db:  # what the disk holds
        longest = db.execute("select max(length(cast(arguments as blob))) from calls").fetchone()[0]
    assert longest <= LIMIT
