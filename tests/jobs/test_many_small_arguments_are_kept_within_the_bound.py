"""A job's record and its call's provenance record keep at most 64 KiB of arguments also when they are many
small ones (review r21 M5).

A tool taking ``**kwargs`` called with 100,000 arguments (1.6 MB of JSON) left 11.5 MB in ``jobs.sqlite3``
and as much in ``provenance.sqlite3``: each small value was replaced by a marker larger than itself. Now such
arguments are kept as one marker naming their size, number and digest; the function still gets them all.

Through a real server, the official ``mcp`` client, and the real SQLite files of the state directory.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from support import ended_job, mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]
LIMIT = 64 * 1024
COUNT = 100_000


async def test_a_hundred_thousand_small_arguments_are_one_marker_in_both_records(tmp_path: Path) -> None:
    server = MCPServer("many-arguments", state_dir=tmp_path)

    @server.async_tool()
    def many(**values: int) -> int:
        """How many values."""
        return len(values)

    arguments = {f"k{i:06d}": i for i in range(COUNT)}
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            started = await client.call_tool("many", arguments)
            answer, record = await ended_job(client, started)

    assert answer["status"] == "done", answer
    assert answer["result"] == COUNT  # the function got them all
    whole = json.dumps(arguments, separators=(",", ":"))
    marker = {"[not stored]": f"{len(whole)} bytes of JSON in {COUNT} arguments, "
                              f"sha256:{hashlib.sha256(whole.encode()).hexdigest()}"}
    assert record["arguments"] == marker
    with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:
        kept = [json.loads(text) for (text,) in db.execute("select arguments from jobs where tool = 'many'")]
    assert kept == [marker]
    with sqlite3.connect(tmp_path / "provenance.sqlite3") as db:
        longest = db.execute("select max(length(cast(arguments as blob))) from calls").fetchone()[0]
    assert longest <= LIMIT
