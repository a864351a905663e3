"""The record of a call the server's stop cut short keeps its error and no result, and its RO-Crate has no
``result.json`` and no ``result`` on its failed action: its client got the stopping server's -32000, no
result, and the record's error text ("the server stopped while this call ran ...") is the server's, not the
tool's. Real ``nanohubmcp run`` process, the official client, a real SIGTERM, the crate written by
``nanohubmcp provenance export`` in a process of its own.

Found by a fresh-user trial (trial71 T71-9): the crate's failed action named a ``result.json`` "the tool's result
(a CallToolResult)" holding that error text as ``{"content": [...], "isError": true}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from stopped_calls import stop_while_running

APP = """
import asyncio, sys
from nanohubmcp import MCPServer
server = MCPServer("stopped")

@server.tool()
async def slow() -> str:
    '''Sleeps past the stop.'''
    print("slow: running", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
    return "late"
"""


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.anyio
async def test_the_crate_of_a_call_the_stop_cut_short_has_its_error_and_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped = await stop_while_running(tmp_path, monkeypatch, APP, ("slow",))
    assert [e.error.code for e in stopped.errors] == [-32000], stopped.errors
    state, rows = stopped.state, stopped.rows
    assert len(rows) == 1, rows
    assert "failed" in rows[0], rows
    record_id = rows[0].split()[0]
    crate = tmp_path / "crate"
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "export", record_id,
                           "--state-dir", str(state), "-o", str(crate)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    graph = {entity["@id"]: entity for entity in json.loads((crate / "ro-crate-metadata.json").read_text())["@graph"]}
    action = graph["#action"]
    assert action["actionStatus"] == {"@id": "http://schema.org/FailedActionStatus"}, action
    assert action["error"].startswith("the server stopped while this call ran"), action
    assert "result" not in action, action
    assert not (crate / "result.json").exists()
    assert "result.json" not in graph
    record = json.loads((crate / "provenance.json").read_text())
    assert (record["status"], record["error"]) == ("failed", action["error"]), record
    assert (record["result"], record["result_digest"]) == (None, None), record
