"""What the tests of a full job store share (the whole store's ``max_jobs``, one owner's ``max_jobs_per_owner``): a
job finished, and a real server's refusal of a job once its one slot holds a finished job, over REST and MCP."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from json_posts import post_json_with_headers
from support import call_tool_http, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.jobs import service as jobmod

TTL = 100.0
"""How long the refusing server keeps a finished job (``job_ttl_seconds``): what its refusal counts down."""


def finish(job: jobmod.Job) -> None:
    """End ``job`` completed, with a text result."""
    job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": "done"}]})


@dataclass(frozen=True)
class Refused:
    """A full store's refusal of a job, as REST and MCP answer it."""

    error: str
    """REST's 429 ``error``."""
    retry_after: int
    """REST's ``Retry-After`` (seconds)."""
    mcp_text: str
    """The text of the MCP ``tools/call`` result (``isError``)."""


def refused_once_full(tmp_path: Path, name: str, **limit: int) -> Refused:
    """A real server ``name`` (SQLite in ``tmp_path``, jobs kept :data:`TTL` s) with ``limit`` (``max_jobs=1`` or
    ``max_jobs_per_owner=1``): its async tool ``quick`` started over REST (202) and finished, then started again
    over REST and over MCP (sessionless: the same owner). Checks that both are refused saying when to retry, REST
    with 429 and ``Retry-After``, MCP with ``_meta["io.nanohub/retryAfter"]``, each within 5 s of :data:`TTL`, and
    that both texts say "A slot frees in about N s" with that N."""
    server = MCPServer(name, state_dir=str(tmp_path), job_ttl_seconds=TTL, **limit)

    @server.async_tool()
    def quick() -> str:
        """Answer at once."""
        return "quick"

    with serve(server) as base:
        status, _, started = post_json_with_headers(base + "tools/quick", {})
        assert status == 202, started
        service = server.core.job_service
        wait_until(lambda: service.jobs.backend.load(str(started["job_id"]))["status"] == jobmod.COMPLETED,
                   "the job to finish", 30)
        status, headers, body = post_json_with_headers(base + "tools/quick", {})
        refused = call_tool_http(base, "quick", {})
    assert status == 429, body
    error, retry_after = str(body["error"]), int(headers["Retry-After"])
    assert TTL - 5 <= retry_after <= TTL
    assert f"A slot frees in about {retry_after} s" in error, body
    meta: Any = refused.get("_meta", {})
    assert refused["isError"] is True, refused
    assert TTL - 5 <= meta["io.nanohub/retryAfter"] <= TTL
    text = str(refused["content"][0]["text"])
    assert f"A slot frees in about {meta['io.nanohub/retryAfter']} s" in text
    return Refused(error, retry_after, text)
