"""Reads of record URIs no process has stored, on a store other processes may write, share one look for
them, made off the event loop, and only so many wait at once (review r21 M1).

On a shared store (a state directory the user named, or a shared state URL) a read of a record not stored
yet waits up to ``ELSEWHERE_SECONDS`` (5 s) for another process's writer. Each such read looked the record
up in SQLite on the event loop every 50 ms, under the lock the writer holds through its transactions, and
nothing bounded how many waited: 500 of them took 16.6 s and made every other call wait.

Now one thread looks for all of them at once, when the file changed; the loop only waits; past
``MAX_WAITING_EACH`` reads of one caller (here: all sessionless callers) a read is answered "not found" at
once. A record another server writes meanwhile is still found (the promise of docs/how-to/provenance.md).

Real servers over HTTP (JSON-RPC on ``POST /``), records in a real SQLite file; every thread the server
starts is watched with ``threading.setprofile`` for the calls of the records' lookups.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import types
from pathlib import Path
from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import record_db
from nanohubmcp.server.provenance.awaited import MAX_WAITING_EACH
from nanohubmcp.server.provenance.record_ids import RecordIds
from nanohubmcp.server.provenance.records import ELSEWHERE_SECONDS
from nanohubmcp.server.provenance.rows import URI_PREFIX

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]
READS = 100
META = "io.nanohub/provenance"
LOOKUPS = {method.__code__ for method in (record_db.SQLiteRecords.get_row, record_db.SQLiteRecords.written)}


def build(state: Path) -> MCPServer:
    server = MCPServer("awaited-records", state_dir=state)  # a named state directory: a shared store

    @server.tool()
    async def loop_thread() -> str:
        """The thread of the server's event loop."""
        return threading.current_thread().name

    @server.tool()
    def add(a: int, b: int) -> int:
        """a plus b."""
        return a + b

    return server


def rpc(method: str, params: dict[str, Any], rid: int | str = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


async def test_many_unknown_reads_wait_together_off_the_loop_and_the_surplus_is_answered_at_once(
        tmp_path: Path) -> None:
    lookups: list[str] = []

    def profile(frame: types.FrameType, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code in LOOKUPS:
            lookups.append(threading.current_thread().name)

    server = build(tmp_path / "state")
    ids = RecordIds()
    threading.setprofile(profile)  # every thread started from here on: the server's loop and its workers
    try:
        with serve(server) as url:
            async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=READS + 5)) as client:
                loop = (await client.post(url, json=rpc("tools/call", {"name": "loop_thread", "arguments": {}})))
                loop_name = loop.json()["result"]["content"][0]["text"]
                own = await client.post(url, json=rpc("resources/read", {"uri": loop.json()["result"]["_meta"][META]}))
                assert "contents" in own.json()["result"]  # its record written: the process's first batch is out
                lookups.clear()

                async def read(i: int) -> tuple[float, dict[str, Any]]:
                    started = time.monotonic()
                    answer = await client.post(url, json=rpc("resources/read", {"uri": URI_PREFIX + ids.next()}, i))
                    return time.monotonic() - started, answer.json()

                answers = await asyncio.gather(*(read(i) for i in range(READS)))
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]

    assert all(answer["error"]["code"] == -32002 for _, answer in answers), answers[:3]  # "not found", as before
    took = sorted(seconds for seconds, _ in answers)
    at_once = [seconds for seconds in took if seconds < ELSEWHERE_SECONDS / 2]
    assert len(at_once) >= READS - MAX_WAITING_EACH, took  # one caller's reads past the bound do not wait
    assert took[-1] < 2 * ELSEWHERE_SECONDS, took  # the others waited about 5 s, together
    assert loop_name not in lookups, "a record was looked up on the event loop"
    # a first look each, then one look a tick for all waiting reads while some are new or the file changed
    # (a read polled alone every 50 ms: about 100 looks each)
    assert len(lookups) < 2 * READS, len(lookups)


def test_a_record_another_server_writes_while_a_read_waits_is_found(tmp_path: Path) -> None:
    state = tmp_path / "shared-state"
    with serve(build(state)) as first, serve(build(state)) as second:
        uris = []
        for i in range(3):
            sent = httpx.post(first + "tools/add", json={"a": 1, "b": i}, timeout=10)  # REST: anyone holding it reads
            link = sent.headers["Link"]
            uris.append(link[1 : link.index(">")])
        for i, uri in enumerate(uris):  # asked of the second server before the first wrote them
            read = httpx.post(second, json=rpc("resources/read", {"uri": uri}), timeout=30).json()
            assert json.loads(read["result"]["contents"][0]["text"])["arguments"] == {"a": 1, "b": i}, read
