"""A job's data over ``max_inline_bytes`` is its polled ``result`` as the tool returned it, whether an MCP client
or REST started the job (trial45 T45-14); an ``Image`` is named as a picture in a dict as in a list (T45-6); a
kept bytes file's link describes no unreadable URI (T45-7); a kept sound's note prints the size it compared
(T45-5); a long caption beside a picture is kept as a text alone is (T45-20).

Before: an MCP-started job's data over the limit was kept, and its ``result`` was a list holding the note
(``["Preview ...", "<content[1]>"]`` for a dict or a string); REST-started, the value. ``{"a": Image(png)}``
answered ``{"a": "<content[0]>"}``; a kept bytes link said ``the file nanohubmcp://result``; a sound's note said
``(16044 bytes) is larger than max_inline_bytes (20000)``; a 30,000-character caption went inline.

An MCP poll links the data over the limit, as a direct MCP call does (its resource reads the value):
test_an_mcp_poll_links_a_jobs_large_data_as_a_direct_call_does.

A real server, the official ``mcp`` client, REST over plain HTTP.
"""

from __future__ import annotations

import io
import json
import wave
from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, serve

from nanohubmcp import Audio, Image, MCPServer

LIMIT = 20_000
DATA = {"y": list(range(20_000))}  # ~109 KB of JSON
TEXT = "x" * 30_000
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)  # a small picture by its first bytes (never decoded)


def _wav(frames: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(bytes(2 * frames))
    return out.getvalue()


WAV = _wav(8000)  # 16,044 bytes: under the limit, its base64 (21,392) over it


def big_dict() -> dict[str, Any]:
    return DATA


def big_text() -> str:
    return TEXT


def picture_and_data() -> list[Any]:
    return [Image(PNG), DATA]


def image_in_dict() -> dict[str, Any]:
    return {"a": Image(PNG), "n": 1}


JOBS = {  # the tool -> its job's result, whoever started or polls it
    big_dict: DATA,
    big_text: TEXT,
    picture_and_data: ["<image: content[1]>", DATA],
    image_in_dict: {"a": "<image: content[1]>", "n": 1},
}


def build() -> MCPServer:
    server = MCPServer("job-data", max_inline_bytes=LIMIT, job_store="memory")
    for fn in JOBS:
        server.async_tool(name=fn.__name__, description=f"{fn.__name__}, as a job")(fn)

    @server.tool()
    def sound() -> Audio:
        """A 16,044-byte WAV."""
        return Audio(WAV)

    @server.tool()
    def blob() -> bytes:
        """60 KB that are no picture."""
        return b"%PDF-1.4\n" + bytes(60_000)

    @server.tool()
    def captioned() -> list[Any]:
        """A small picture and a long caption."""
        return [Image(PNG), TEXT]

    @server.tool()
    def images() -> Any:
        """An Image in a dict and in a list."""
        return {"d": {"a": Image(PNG), "n": 1}, "l": [Image(PNG), Image(PNG)]}

    return server


async def _mcp_polled(client: Any, job_id: str) -> Any:
    """A done job's value as an MCP poll gives it: its ``result``, or, over the limit, what its link reads."""
    answer = await done_job(client, job_id)
    result = answer.structured_content["result"]
    if not (isinstance(result, str) and result.startswith("<content[")):
        return result
    link = answer.content[int(result[len("<content["):-2])]
    text = (await client.read_resource(link.uri)).contents[0].text
    return text if link.mime_type == "text/plain" else json.loads(text)


@pytest.mark.anyio
async def test_a_jobs_large_data_is_its_result_whoever_started_it() -> None:
    with serve(build()) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            for fn, value in JOBS.items():
                name = fn.__name__
                by_mcp = (await client.call_tool(name, {})).structured_content["job_id"]
                by_rest = (await anyio.to_thread.run_sync(post_tool, url, name, {}))["job_id"]
                for job_id in (by_mcp, by_rest):
                    assert await _mcp_polled(client, job_id) == value, name
                assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == value, name


@pytest.mark.anyio
async def test_a_kept_sounds_note_gives_the_size_it_compared() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            link, note = (await client.call_tool("sound", {})).content
            assert link.type == "resource_link"
            assert link.size == len(WAV)
            assert f"({len(WAV)} bytes, 21392 as base64) is larger than max_inline_bytes ({LIMIT})" in note.text


@pytest.mark.anyio
async def test_a_kept_bytes_link_names_no_unreadable_uri() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            blob = (await client.call_tool("blob", {})).content[0]
            assert blob.type == "resource_link"
            assert blob.description == "the tool's bytes"


@pytest.mark.anyio
async def test_a_long_caption_beside_a_picture_is_kept_as_a_text_alone_is() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            captioned = await client.call_tool("captioned", {})
            assert [block.type for block in captioned.content] == ["image", "resource_link", "text"]
            assert (await client.read_resource(captioned.content[1].uri)).contents[0].text == TEXT
            assert len(captioned.content[2].text) < 1000


def test_an_image_is_named_a_picture_in_a_dict_as_in_a_list() -> None:
    with serve(build()) as url:
        assert post_tool(url, "images", {}) == {"d": {"a": "<image: content[0]>", "n": 1},
                                                "l": ["<image: content[1]>", "<image: content[2]>"]}
