"""A job always ends: an ``@async_tool`` whose function returned a value the job store cannot
take (nested 600 deep: the store's copy of the result recursed past Python's limit inside the
job's task) stayed ``running`` for ever and held its ``max_jobs`` slot (trial12 MED-1). It now
ends ``failed`` with a message saying why. A real server over REST.

(A value nested past ``MAX_JSON_DEPTH`` is now the tool's error before the store sees it:
``tests/server/test_results_nested_too_deep_are_a_tool_error.py``. What reaches the store
unchecked here was a ``ToolResult``'s own ``_meta``; since trial45 T45-16 that too is checked as the result is
made, so the job ends failed with the meta's own refusal, before the store: either way it ends, saying why.)"""

from __future__ import annotations

import time

import httpx2 as httpx
from support import serve

from nanohubmcp import MCPServer, ToolResult

DEPTH = 600


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def build() -> MCPServer:
    server = MCPServer("deep-jobs", job_store="memory")

    @server.async_tool()
    def deep() -> ToolResult:
        """A result whose meta is nested 600 deep."""
        return ToolResult(content="x", meta={"deep": nested(DEPTH)})

    return server


def test_a_job_whose_result_cannot_be_stored_ends_failed_with_a_message() -> None:
    with serve(build()) as url:
        started = httpx.post(f"{url}tools/deep", json={}, timeout=10)
        assert started.status_code == 202, started.text
        job_id = started.json()["job_id"]
        deadline = time.monotonic() + 20
        while True:
            reply = httpx.post(f"{url}tools/get_job_result", json={"job_id": job_id}, timeout=10).json()
            if reply["status"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert reply["status"] == "error", reply  # a failed job, as REST spells it
        assert "ToolResult meta cannot be sent" in str(reply), reply
        assert "nests more than 128 levels deep" in str(reply), reply
