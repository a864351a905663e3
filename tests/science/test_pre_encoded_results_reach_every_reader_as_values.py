"""An array's or table's result carries its data as pre-encoded JSON (``encoded.Encoded``); every
reader inside the server gets the same values as a client: ``server.call``, the result cache (a hit
answers the same data), a job's stored result, and provenance's digest and kept record."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
import pandas as pd
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.provenance import result_text
from nanohubmcp.server.results import shape as results

TABLE = pd.DataFrame({"x": [1.5, 1e-5, float("nan")], "name": ["a", "b", None]})
RECORDS = [
    {"index": 0, "x": 1.5, "name": "a"},
    {"index": 1, "x": 1e-5, "name": "b"},
    {"index": 2, "x": None, "name": None},
]
ARRAY = np.array([[0.25, 2.5e-7], [3.0, np.inf]])


RUNS: list[int] = []  # arguments of the table tool's runs


def build() -> MCPServer:
    server = MCPServer("encoded")

    @server.tool(cache=True)
    def table(n: int) -> pd.DataFrame:
        """A small table (cached)."""
        RUNS.append(n)
        return TABLE

    @server.async_tool()
    def grid() -> np.ndarray:
        """A 2x2 array, as a job."""
        return ARRAY

    return server


def wait_for_job(server: MCPServer, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = server.call("get_job_result", {"job_id": job_id}).structured
        if status["status"] != "running":
            return status
        time.sleep(0.05)
    raise AssertionError("the job did not finish")


def test_server_call_the_cache_and_a_job_read_the_values() -> None:
    server = build()
    with serve(server):
        first = server.call("table", {"n": 1})
        again = server.call("table", {"n": 1})
        assert RUNS == [1]  # the second call was a cache hit
        for answer in (first, again):
            assert answer.structured == {"result": RECORDS}
            assert type(answer.structured["result"]) is list  # plain values, not pre-encoded text
            assert json.loads(answer["content"][-1]["text"]) == {"result": RECORDS}
        handle = server.call("grid").structured
        done = wait_for_job(server, handle["job_id"])
        grid = [[0.25, 2.5e-7], [3.0, None]]  # the array's data, as a list's (trial26 F7)
        assert done == {"status": "done", "job_id": handle["job_id"], "result": grid}


def test_provenance_digests_and_keeps_the_values() -> None:
    for value in (TABLE, ARRAY):
        result = results.tool_result(value)
        assert type(result["structuredContent"]["result"]) is Encoded
        digest, kept = result_text.digest_of(result)
        plain = jsonenc.plain(result)
        assert type(plain["structuredContent"]["result"]) is list  # the same values, not pre-encoded
        assert (digest, kept) == result_text.digest_of(plain)  # one digest, whichever form the values take
        assert kept is not None
        assert json.loads(kept) == {key: item for key, item in plain.items() if key != "_meta"}
        # the digest is of the values as the wire writes them: a changed value changes it
        changed = json.loads(kept)
        changed["structuredContent"]["result"][0] = None
        assert result_text.digest_of(changed)[0] != digest
