"""A picture larger than ``max_inline_bytes`` is kept as a resource and linked in its own place whatever shape
the tool returned it in, and a job's value names that link as REST names the picture, whoever started the job.

Found by a fresh-scientist trial (trial43 T43-8): a figure alone, ``(fig, array)`` and ``{"plot": fig}`` were
kept, but ``[fig, "caption"]``, ``[fig, fig]`` and a PIL ``[img, "caption"]`` went inline (megabytes of base64
in the model's context). T43-7: a job started over MCP named the kept picture ``"<content[0]>"`` (REST:
``"<image: content[0]>"``), and a figure alone became ``[note, "<content[1]>"]``.

A real server, the official ``mcp`` client, REST ``POST /tools/<name>``. The pictures are noise, a few KB of
PNG, just over a ``max_inline_bytes`` of 2,048 bytes.
"""

from __future__ import annotations

import io
from typing import Any

import anyio
import pytest
from support import done_job, mcp_client, post_tool, rest_job_value, returning, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
PILImage = pytest.importorskip("PIL.Image")

LIMIT = 2048


def noise_figure(seed: int = 0) -> Any:
    fig, ax = plt.subplots(figsize=(1, 1), dpi=40)
    ax.imshow(np.random.default_rng(seed).random((40, 40)))
    return fig


def noise_image() -> Any:
    return PILImage.frombytes("RGB", (30, 30), np.random.default_rng(1).integers(0, 256, 2700, np.uint8).tobytes())


def noise_png() -> bytes:
    out = io.BytesIO()
    noise_image().save(out, format="PNG")
    return out.getvalue()


SHAPES = {
    "png_bytes": noise_png,
    "alone": lambda: noise_figure(),
    "captioned": lambda: [noise_figure(), "caption"],
    "two": lambda: [noise_figure(1), noise_figure(2)],
    "pil_captioned": lambda: [noise_image(), "caption"],
    "with_array": lambda: (noise_figure(), np.arange(3)),
    "in_dict": lambda: {"plot": noise_figure(), "n": 1},
    "with_data": lambda: [noise_figure(), "caption", {"seed": 3}],
}
PICTURES = {"png_bytes": [0], "alone": [0], "captioned": [0], "two": [0, 1], "pil_captioned": [0], "with_array": [0],
            "in_dict": [0], "with_data": [0]}
JOB_VALUES = {  # each link named by its index in get_job_result's answer, after the JSON text (trial44 T44-10)
    "alone": "<image: content[1]>",
    "captioned": ["<image: content[1]>", "caption"],
    "two": ["<image: content[1]>", "<image: content[2]>"],
    "with_array": ["<image: content[1]>", [0, 1, 2]],
    "with_data": ["<image: content[1]>", "caption", {"seed": 3}],
}


def build() -> MCPServer:
    server = MCPServer("kept-pictures", max_inline_bytes=LIMIT, job_store="memory")
    for name, make in SHAPES.items():
        server.tool(name=name, description=f"{name} shape")(returning(make))
    for name in JOB_VALUES:
        server.async_tool(name=f"{name}_job", description=f"{name} shape, as a job")(returning(SHAPES[name]))
    return server


@pytest.mark.anyio
async def test_every_shape_keeps_each_picture_over_the_limit_and_links_it_in_its_place() -> None:
    with serve(build()) as url, anyio.fail_after(120):
        async with mcp_client(url + "mcp") as client:
            for name, pictures in PICTURES.items():
                result = await client.call_tool(name, {})
                assert not result.is_error, result.content
                kinds = [block.type for block in result.content]
                assert "image" not in kinds, f"{name}: a picture over max_inline_bytes was sent inline: {kinds}"
                sent = sum(len(block.model_dump_json()) for block in result.content)
                assert sent < 4 * LIMIT, f"{name}: {sent} bytes of content"
                for index in pictures:  # the link stands in the picture's own place
                    link = result.content[index]
                    assert link.type == "resource_link", (name, kinds)
                    read = await client.read_resource(link.uri)
                    assert read.contents[0].mime_type == "image/png"
                    assert read.contents[0].blob
                notes = [block.text for block in result.content if block.type == "text"
                         and "larger than max_inline_bytes" in block.text]
                assert len(notes) == len(pictures), (name, notes)
                if name.endswith("captioned"):
                    assert result.content[1].text == "caption"  # the caption keeps its place
    plt.close("all")


@pytest.mark.anyio
async def test_a_jobs_kept_picture_is_named_the_same_whether_mcp_or_rest_started_it() -> None:
    with serve(build()) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            for name, value in JOB_VALUES.items():
                started = await client.call_tool(f"{name}_job", {})
                done = await done_job(client, started.structured_content["job_id"])
                assert done.structured_content["result"] == value, name
                by_rest = post_tool(url, f"{name}_job", {})
                assert await anyio.to_thread.run_sync(rest_job_value, url, by_rest["job_id"]) == value, name
    plt.close("all")
