"""A job's file over ``max_inline_bytes`` (an output file, bytes) is kept, named and linked the same way whether
an MCP client (``tools/call``) or REST (``POST /tools/<name>``) started the job, and whether MCP or REST polls it.

Before: a job started over MCP kept the file at its end with its note before its link, so its value read
``[note, "<content[1]>"]`` where REST's read ``"<content[0]>"``; a job started over REST kept nothing, and each
MCP poll of it kept the file again (a new URI, and a new copy in the store, at every poll) and sent the note
along (a picture: sent inline, at any size); bytes alone were never kept (sent inline at any size), and a
note of a kept ``nanohubmcp://result`` named ``nanohubmcp://results/<id>s/<id>`` (the old URI is the start of
the new one, and was renamed in the note).

A real server, the official ``mcp`` client, REST over plain HTTP.
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, serve

from nanohubmcp import MCPServer, ToolResult

LIMIT = 2048
DATA = bytes(range(256)) * 20  # 5,120 bytes that are no picture (nor audio)
TEXT = "a line of the run's log\n" * 300
PNG = b"\x89PNG\r\n\x1a\n" + DATA  # a picture by its first bytes (never drawn: kept as it is)


def text_file() -> ToolResult:
    return ToolResult([{"type": "resource", "resource": {"uri": "file:///tmp/jobnames-run/log.txt",
                                                          "mimeType": "text/plain", "text": TEXT}}])


def blob_file() -> ToolResult:
    return ToolResult([{"type": "text", "text": "files: out.dat"},
                       {"type": "resource", "resource": {"uri": "file:///tmp/jobnames-run/out.dat",
                                                         "mimeType": "application/octet-stream",
                                                         "blob": base64.b64encode(DATA).decode()}}],
                      structured_content={"files": ["out.dat"]})


def raw_bytes() -> bytes:
    return DATA


def bytes_captioned() -> list[Any]:
    return [DATA, "caption"]


def png_bytes() -> bytes:
    return PNG


def bytes_result() -> ToolResult:
    return ToolResult([{"type": "resource", "resource": {"uri": "nanohubmcp://result", "blob":
                                                         base64.b64encode(DATA).decode()}}])


JOBS = {  # the tool -> its job's value, whoever started or polls it (the link: content[1] of the poll's answer)
    text_file: "<content[1]>",
    blob_file: {"files": ["out.dat"]},
    raw_bytes: "<content[1]>",
    bytes_captioned: ["<content[1]>", "caption"],
    png_bytes: "<image: content[1]>",
}
KEPT = {text_file: TEXT, blob_file: DATA, raw_bytes: DATA, bytes_captioned: DATA, png_bytes: PNG}


def build() -> MCPServer:
    server = MCPServer("kept-files", max_inline_bytes=LIMIT, job_store="memory")
    for fn in JOBS:
        server.async_tool(name=fn.__name__, description=f"{fn.__name__}, as a job")(fn)
    for fn in (raw_bytes, bytes_result):
        server.tool(name=f"{fn.__name__}_now", description=f"{fn.__name__}, answered at once")(fn)
    return server


def link_of(answer: Any) -> Any:
    """The one kept file's link of an MCP poll's answer: its blocks after the status are that link alone."""
    blocks = answer.content[1:]
    assert [block.type for block in blocks] == ["resource_link"], [b.model_dump(exclude_none=True) for b in blocks]
    link = blocks[0]
    assert str(link.uri).startswith("nanohubmcp://results/"), link.uri
    return link


async def read_back(client: Any, link: Any) -> bytes | str:
    contents = (await client.read_resource(link.uri)).contents[0]
    return contents.text if hasattr(contents, "text") else base64.b64decode(contents.blob)


@pytest.mark.anyio
async def test_a_jobs_kept_file_is_named_and_linked_the_same_whoever_started_or_polls_it() -> None:
    with serve(build()) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            for fn, value in JOBS.items():
                name = fn.__name__
                by_mcp = (await client.call_tool(name, {})).structured_content["job_id"]
                by_rest = post_tool(url, name, {})["job_id"]
                mcp_answer, rest_answer = await done_job(client, by_mcp), await done_job(client, by_rest)
                assert mcp_answer.structured_content["result"] == value, name
                assert rest_answer.structured_content["result"] == value, name
                assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == value, name  # (only its own)
                mcp_link, rest_link = link_of(mcp_answer), link_of(rest_answer)
                fields = ("name", "mimeType", "size", "description")
                assert mcp_link.model_dump(by_alias=True, include=set(fields)) == rest_link.model_dump(
                    by_alias=True, include=set(fields)), name
                assert rest_link.size == len(KEPT[fn].encode() if isinstance(KEPT[fn], str) else KEPT[fn])
                again = link_of(await done_job(client, by_rest))
                assert again.uri == rest_link.uri, f"{name}: each poll kept the file again"
                for link in (mcp_link, rest_link):
                    assert await read_back(client, link) == KEPT[fn], name


@pytest.mark.anyio
async def test_bytes_over_the_limit_are_kept_and_their_note_names_their_link() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            for name in ("raw_bytes_now", "bytes_result_now"):
                result = await client.call_tool(name, {})
                assert [block.type for block in result.content] == ["resource_link", "text"], (name, result.content)
                link, note = result.content
                assert f"so it is kept as the resource {link.uri} (" in note.text, (name, note.text)
                assert await read_back(client, link) == DATA, name
