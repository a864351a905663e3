"""A polled job's ``"<image: content[i]>"`` / ``"<content[i]>"`` names block i of the ``get_job_result`` answer
the client holds, over MCP and REST alike.

Found by a fresh-user trial (trial44 T44-10): a job returning ``[big_fig, "caption A", small_img]`` (the figure
over ``max_inline_bytes``) was polled as content ``[status JSON, resource_link, image]`` with ``result``
``["<image: content[0]>", "caption A", "<image: content[2]>"]``: the indexes of the job's own result, whose
caption and note blocks the poll never sends, so ``content[0]`` was the JSON text, not the picture. A dict's
placeholder (``{"plot": fig}``) read the same way.

A real server, the official ``mcp`` client, REST ``POST /tools/get_job_result``.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, returning, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
PILImage = pytest.importorskip("PIL.Image")

LIMIT = 2048


def big_image() -> Any:  # noise: a PNG of about 8 KB, over the limit
    return PILImage.fromarray(np.random.default_rng(0).integers(0, 256, (50, 50, 3), np.uint8))


def small_image() -> Any:
    return PILImage.new("RGB", (4, 4), (255, 0, 0))


SHAPES = {  # the tool's value -> the polled job's result, the poll's content types after its JSON text
    "kept_caption_inline": (lambda: [big_image(), "caption A", small_image()],
                            ["<image: content[1]>", "caption A", "<image: content[2]>"], ["resource_link", "image"]),
    "in_a_dict": (lambda: {"plot": small_image(), "n": 1}, {"plot": "<image: content[1]>", "n": 1}, ["image"]),
    "with_data": (lambda: ["caption", small_image(), {"n": 1}, big_image()],
                  ["caption", "<image: content[1]>", {"n": 1}, "<image: content[2]>"], ["image", "resource_link"]),
    "look_alike_text": (lambda: [small_image(), {"said": "<content[7]>"}],  # no block 7: the tool's own text
                        ["<image: content[1]>", {"said": "<content[7]>"}], ["image"]),
}


def build() -> MCPServer:
    server = MCPServer("polled-names", max_inline_bytes=LIMIT, job_store="memory")
    for name, (make, _, _) in SHAPES.items():
        server.async_tool(name=name, description=f"{name}, as a job")(returning(make))
    return server


def named_index(name: str) -> int:
    return int(name.rsplit("[", 1)[1].rstrip("]>"))


def names_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.startswith(("<image: content[", "<content[")) else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [name for item in items for name in names_in(item)]


@pytest.mark.anyio
async def test_each_name_is_the_index_of_its_block_in_the_polls_answer() -> None:
    with serve(build()) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client:
            for name, (_, polled, kinds) in SHAPES.items():
                started = await client.call_tool(name, {})
                answer = await done_job(client, started.structured_content["job_id"])
                assert [block.type for block in answer.content] == ["text", *kinds], name
                value = answer.structured_content["result"]
                assert value == polled, name
                for placeholder in names_in(value):
                    index = named_index(placeholder)
                    if index >= len(answer.content):
                        continue  # the tool's own look-alike text
                    block = answer.content[index]
                    kept = block.type == "resource_link" and block.mime_type == "image/png"
                    picture = block.type == "image" or kept
                    assert picture == placeholder.startswith("<image:"), (name, placeholder, block.type)
                by_rest = post_tool(url, name, {})["job_id"]  # REST: the same names
                assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest) == polled, name
