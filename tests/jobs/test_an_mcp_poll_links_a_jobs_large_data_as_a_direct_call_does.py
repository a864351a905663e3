"""An MCP client polling a done job whose data is over ``max_inline_bytes`` gets it as a direct MCP call of the
tool gets it: a note with a preview and a ``resource_link`` that reads back all of the data, kept once per job
(a second poll answers the same URI), owned by the job's owner; a REST poll still reads the value.

Before: since every job keeps its data in its record (6d6a94b2), the MCP poll's answer carried all ~100 KB of
it, text and structured content, into the model's context.

A real server, the official ``mcp`` client, REST over plain HTTP.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, serve

from nanohubmcp import MCPServer

LIMIT = 4096
DATA = {"y": list(range(18_000))}  # ~100 KB of JSON
TEXT = "x" * 30_000


def build() -> MCPServer:
    server = MCPServer("job-poll", max_inline_bytes=LIMIT, job_store="memory")

    @server.async_tool()
    def big_dict() -> dict[str, Any]:
        """About 100 KB of data."""
        return DATA

    @server.async_tool()
    def big_text() -> str:
        """30,000 characters."""
        return TEXT

    @server.async_tool()
    def small() -> dict[str, Any]:
        """A little data."""
        return {"n": 1}

    return server


async def _linked(client: Any, job_id: str) -> tuple[str, Any]:
    """The URI of the link a poll of ``job_id`` answers, and what reading it gives; the answer is small."""
    answer = await done_job(client, job_id)
    assert [block.type for block in answer.content] == ["text", "text", "resource_link"]
    assert sum(len(block.text) for block in answer.content if block.type == "text") < 2000
    assert answer.structured_content["result"] == "<content[2]>"
    note, link = answer.content[1:]
    assert "Preview (first 400 characters" in note.text
    assert f"larger than max_inline_bytes ({LIMIT})" in note.text
    assert str(link.uri) in note.text
    read = (await client.read_resource(link.uri)).contents[0].text
    return str(link.uri), read


@pytest.mark.anyio
async def test_an_mcp_poll_links_a_jobs_large_data_once_and_rest_reads_the_value() -> None:
    with serve(build()) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client:
            job_id = (await client.call_tool("big_dict", {})).structured_content["job_id"]
            uri, read = await _linked(client, job_id)
            assert json.loads(read) == DATA
            assert (await _linked(client, job_id))[0] == uri  # kept once: the second poll links the same

            text_job = (await client.call_tool("big_text", {})).structured_content["job_id"]
            assert (await _linked(client, text_job))[1] == TEXT

            # a job a REST call started (no session: any caller holding its id polls it): REST reads the value,
            # an MCP poll the link
            by_rest = (await anyio.to_thread.run_sync(post_tool, url, "big_dict", {}))["job_id"]
            assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == DATA
            assert json.loads((await _linked(client, by_rest))[1]) == DATA
            assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == DATA

            small = (await client.call_tool("small", {})).structured_content["job_id"]
            assert (await done_job(client, small)).structured_content["result"] == {"n": 1}


@pytest.mark.anyio
async def test_the_kept_data_reads_only_to_the_jobs_owner() -> None:
    with serve(build()) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client, mcp_client(url + "mcp") as other:
            job_id = (await client.call_tool("big_dict", {})).structured_content["job_id"]
            uri, _ = await _linked(client, job_id)
            with pytest.raises(Exception, match=r"(?i)not found|unknown|no resource"):
                await other.read_resource(uri)
