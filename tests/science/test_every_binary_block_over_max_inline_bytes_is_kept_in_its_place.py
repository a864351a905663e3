"""Bytes that are no picture (a PDF, a WAV), an embedded file or audio, over ``max_inline_bytes``, are kept as a
resource and linked in their own place in every shape a tool returns them in — alone, with a caption, among a
list's data, as a dict's value — the notes after the blocks, as a picture's; a small one stays inline. A tool's
own ``resource_link`` to a picture is named ``"<content[i]>"`` in a job's value, as any link the tool gave.

Found by review r22 (R22-M3): ``[pdf, {"n": 1}]`` answered the whole file inline (27,017 bytes with a limit of
4,096) while ``[pdf, "caption"]`` kept and linked it; audio was inline in every shape. R22-N2: a tool's own
``image/*`` link was named ``"<image: content[i]>"``, as if it were a picture the server kept.

A real server, the official ``mcp`` client, REST ``POST /tools/<name>``.
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, returning, serve

from nanohubmcp import AudioContent, EmbeddedResource, MCPServer, ResourceLink

LIMIT = 2048
FILLER = bytes(range(256)) * 20  # 5,120 bytes: 6,828 of base64, over LIMIT
PDF = b"%PDF-1.4\n" + FILLER
WAV = b"RIFF" + (4 + len(FILLER)).to_bytes(4, "little") + b"WAVE" + FILLER
SMALL_PDF = b"%PDF-1.4\n" + b"x" * 100
SMALL_PNG = b"\x89PNG\r\n\x1a\n" + b"p" * 100  # a picture by its first bytes, under the limit
DATA = {"n": 1}


def report() -> EmbeddedResource:
    return EmbeddedResource("file:///tmp/fix22c-run/report.pdf", blob=PDF, mime_type="application/pdf")


def own_link() -> ResourceLink:
    return ResourceLink("data://plot.png", name="plot.png", mime_type="image/png")


SHAPES = {  # the tool's value, the index of each kept block -> (its mimeType, its bytes)
    "pdf_with_data": (lambda: [PDF, DATA], {0: ("application/pdf", PDF)}),
    "pdf_alone": (lambda: PDF, {0: ("application/pdf", PDF)}),
    "pdf_captioned": (lambda: [PDF, "caption"], {0: ("application/pdf", PDF)}),
    "pdf_after_a_picture": (lambda: [SMALL_PNG, PDF, DATA], {1: ("application/pdf", PDF)}),
    "file_in_dict": (lambda: {"report": report(), "n": 1}, {0: ("application/pdf", PDF)}),
    "wav_with_data": (lambda: [WAV, DATA], {0: ("audio/wav", WAV)}),
    "wav_alone": (lambda: WAV, {0: ("audio/wav", WAV)}),
    "audio_captioned": (lambda: [AudioContent(WAV, "audio/wav"), "caption"], {0: ("audio/wav", WAV)}),
    "small_with_data": (lambda: [SMALL_PDF, DATA], {}),
}
STRUCTURED = {"pdf_with_data": DATA, "pdf_after_a_picture": DATA, "file_in_dict": {"report": "<content[0]>", "n": 1},
              "wav_with_data": DATA, "small_with_data": DATA}
JOB_VALUES = {  # as a direct REST call answers (the blocks of the call's answer)
    "pdf_with_data": ["<content[0]>", DATA],
    "wav_with_data": ["<content[0]>", DATA],
    "pdf_after_a_picture": ["<image: content[0]>", "<content[1]>", DATA],
    "own_link_with_data": ["<content[0]>", DATA],
    "own_link_alone": "<content[0]>",
}
POLLED = {  # the job's value, whoever started it: the blocks of get_job_result's answer, after its JSON text
    "pdf_with_data": ["<content[1]>", DATA],
    "wav_with_data": ["<content[1]>", DATA],
    "pdf_after_a_picture": ["<image: content[1]>", "<content[2]>", DATA],
    "own_link_with_data": ["<content[1]>", DATA],
    "own_link_alone": "<content[1]>",
}
MORE = {"own_link_with_data": lambda: [own_link(), DATA], "own_link_alone": own_link}


def build() -> MCPServer:
    server = MCPServer("kept-blocks", max_inline_bytes=LIMIT, job_store="memory")
    makers = {name: make for name, (make, _) in SHAPES.items()} | MORE
    for name, make in makers.items():
        server.tool(name=name, description=f"{name} shape")(returning(make))
    for name in JOB_VALUES:
        server.async_tool(name=f"{name}_job", description=f"{name} shape, as a job")(returning(makers[name]))
    return server


async def read_back(client: Any, uri: Any) -> bytes:
    contents = (await client.read_resource(uri)).contents[0]
    return base64.b64decode(contents.blob)


@pytest.mark.anyio
async def test_every_binary_block_over_the_limit_is_linked_in_its_place_then_noted() -> None:
    with serve(build()) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client:
            for name, (_, kept) in SHAPES.items():
                result = await client.call_tool(name, {})
                assert not result.is_error, result.content
                kinds = [block.type for block in result.content]
                sent = sum(len(block.model_dump_json()) for block in result.content)
                if not kept:  # a small file stays inline
                    assert kinds[0] == "resource", (name, kinds)
                assert sent < 2 * LIMIT, f"{name}: {sent} bytes of content sent inline: {kinds}"
                notes = [i for i, block in enumerate(result.content)
                         if block.type == "text" and "larger than max_inline_bytes" in block.text]
                assert len(notes) == len(kept), (name, kinds)
                for index, (mime, data) in kept.items():
                    link = result.content[index]
                    assert link.type == "resource_link", (name, kinds)
                    assert link.mime_type == mime
                    assert min(notes) > index, f"{name}: a note before the link it names: {kinds}"
                    assert await read_back(client, link.uri) == data, name
                if name.endswith("captioned"):
                    assert result.content[1].text == "caption"
                if name in STRUCTURED:
                    assert result.structured_content == STRUCTURED[name], name


@pytest.mark.anyio
async def test_a_jobs_value_names_kept_files_and_a_tools_own_links_as_rest_does() -> None:
    with serve(build()) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            own = (await client.call_tool("own_link_with_data", {})).content[0]
            assert (own.type, str(own.uri), own.name) == ("resource_link", "data://plot.png", "plot.png")
            for name, value in JOB_VALUES.items():
                assert post_tool(url, name, {})["result"] == value, name  # a direct REST call
                by_mcp = (await client.call_tool(f"{name}_job", {})).structured_content["job_id"]
                assert (await done_job(client, by_mcp)).structured_content["result"] == POLLED[name], name
                by_rest = post_tool(url, f"{name}_job", {})["job_id"]
                assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == POLLED[name], name
