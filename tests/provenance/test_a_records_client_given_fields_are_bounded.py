"""Every field of a provenance record a client's request decides is bounded, so a record holds at
most about 130 KiB of a client's data however large its bodies (trial40 S5: the JSON-RPC ``id``,
8,000,000 characters, was kept whole in ``request_id``: 10 calls wrote 94 MB to
``provenance.sqlite3``).

- A request's id is at most 256 characters (``jsonrpc.MAX_ID_CHARS``, commit a7d50fb): a longer one is
  refused (-32600) before any tool runs, so it leaves no record; one of 256 characters is recorded whole.
- The message a job ended with (a tool's error text, which often quotes what it was given) is cut to
  2,000 characters like a call's error; it was kept whole.
- Arguments: 64 KiB (``test_large_arguments_are_kept_as_their_size_and_digest``).

Through a real server with token authorization, raw HTTP for the ids the official client cannot send,
the official ``mcp`` client for the rest, and the store's SQLite file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from clients import official
from support import PROVENANCE_META, ended_job, serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]
TOKEN = "token-of-dora"
MAX_ID_CHARS = 256
ERROR_CHARS = 2000
LONG = 200_000


def _post(url: str, body: dict[str, Any], session: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return httpx.post(url + "mcp", json=body, headers=headers, timeout=30)


def _session(url: str) -> str:
    reply = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    session = reply.headers["Mcp-Session-Id"]
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


def _answer(reply: httpx.Response) -> dict[str, Any]:
    if reply.headers["Content-Type"].startswith("application/json"):
        return dict(reply.json())
    data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:") and line[5:].strip()]
    return dict(json.loads(data[-1]))


async def test_no_field_of_a_record_keeps_more_of_a_client_than_documented(tmp_path: Path) -> None:
    server = MCPServer("bounded-records", auth=StaticTokenVerifier({TOKEN: "dora"}), state_dir=tmp_path)

    @server.tool()
    def add(a: float, b: float) -> float:
        """a plus b."""
        return a + b

    @server.async_tool()
    def parse(text: str) -> str:
        """Fails, quoting what it was given (as parsers do)."""
        raise ValueError(f"cannot parse {text!r}")

    with serve(server) as url:
        session = _session(url)
        call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
        refused = _answer(_post(url, {**call, "id": "i" * LONG}, session))
        assert refused["error"]["code"] == -32600, refused
        assert f"an id is at most {MAX_ID_CHARS} characters" in refused["error"]["message"]
        kept = _answer(_post(url, {**call, "id": "k" * MAX_ID_CHARS}, session))
        assert kept["id"] == "k" * MAX_ID_CHARS
        uri = kept["result"]["_meta"][PROVENANCE_META]

        async with official(url, TOKEN) as client:
            record = json.loads((await client.read_resource(uri)).contents[0].text)
            started = await client.call_tool("parse", {"text": "t" * LONG})
            _, job_record = await ended_job(client, started)

    assert record["request_id"] == "k" * MAX_ID_CHARS
    assert job_record["status"] == "failed"
    error: str = job_record["error"]
    length = len(error)
    assert length == ERROR_CHARS + 1
    assert error.startswith("cannot parse 'tttt")
    assert error.endswith("…")

    with sqlite3.connect(tmp_path / "provenance.sqlite3") as db:  # what the disk holds, column by column
        columns = [row[1] for row in db.execute("pragma table_info(calls)")]
        longest = {name: db.execute(f"select max(length(cast({name} as blob))) from calls").fetchone()[0] or 0
                   for name in columns}
        assert db.execute("select count(*) from calls where tool = 'add'").fetchone()[0] == 1  # none refused
    assert longest["request_id"] == MAX_ID_CHARS, longest
    assert max(longest.values()) <= 64 * 1024, longest
    assert sum(longest.values()) <= 130 * 1024, longest
    assert sum(path.stat().st_size for path in tmp_path.glob("provenance.sqlite3*")) < LONG
