"""A plot returned together with the numbers behind it: image blocks plus the data, through the official client.

Every mix of figures/images, arrays, frames, numbers and strings in a list, a tuple or a dict gives one PNG
block per picture and the rest as data (JSON text and ``structured_content``); figures are closed after.
"""

from __future__ import annotations

import json

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
PILImage = pytest.importorskip("PIL.Image")

FRAME = pd.DataFrame({"t": [0.0, 1.0], "y": [1.5, np.nan]})


def figure() -> object:
    fig, ax = plt.subplots(figsize=(2, 1), dpi=40)
    ax.plot([0, 1], [0, 1])
    return fig


def build() -> MCPServer:
    server = MCPServer("plot-and-data")

    @server.tool()
    def with_number() -> object:
        """A figure and a number."""
        return [figure(), 3.5]

    @server.tool()
    def with_caption_and_frame() -> object:
        """A figure, a caption and a table."""
        return [figure(), "caption", FRAME]

    @server.tool()
    def with_array() -> object:
        """A figure and an array, as a tuple."""
        return figure(), np.array([1, 2, 3])

    @server.tool()
    def as_dict() -> object:
        """A dict of a figure and a table."""
        return {"plot": figure(), "data": FRAME, "n": np.int64(2)}

    @server.tool()
    def two_pictures_and_data() -> object:
        """Two pictures (a figure and a PIL image) and a dict of arrays."""
        return [figure(), PILImage.new("RGB", (4, 3)), {"x": np.arange(3), "mean": np.float64(1.0)}]

    @server.tool()
    def nested_in_dict() -> object:
        """Figures inside a list inside a dict."""
        return {"plots": [figure(), figure()], "values": [1, 2]}

    return server


def images(result: object) -> list[str]:
    return [block.mime_type for block in result.content if block.type == "image"]  # type: ignore[attr-defined]


def last_text(result: object) -> object:
    return json.loads(result.content[-1].text)  # type: ignore[attr-defined]


RECORDS = [{"index": 0, "t": 0.0, "y": 1.5}, {"index": 1, "t": 1.0, "y": None}]  # the index first


@pytest.mark.anyio
async def test_every_mix_of_pictures_and_data_gives_images_and_the_data() -> None:
    plt.close("all")
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("with_number", {})
            assert not result.is_error, result.content
            assert images(result) == ["image/png"]
            assert result.structured_content == {"result": 3.5}
            assert last_text(result) == {"result": 3.5}

            result = await client.call_tool("with_caption_and_frame", {})
            assert not result.is_error, result.content
            assert [block.type for block in result.content] == ["image", "text", "text"]
            assert result.content[1].text == "caption"
            assert result.structured_content == {"result": RECORDS}

            result = await client.call_tool("with_array", {})
            assert not result.is_error, result.content
            assert images(result) == ["image/png"]
            assert result.structured_content == {"result": [1, 2, 3]}

            result = await client.call_tool("as_dict", {})
            assert not result.is_error, result.content
            assert images(result) == ["image/png"]
            assert result.structured_content == {"plot": "<image: content[0]>", "data": RECORDS, "n": 2}
            assert last_text(result) == result.structured_content

            result = await client.call_tool("two_pictures_and_data", {})
            assert not result.is_error, result.content
            assert images(result) == ["image/png", "image/png"]
            assert result.structured_content == {"x": [0, 1, 2], "mean": 1.0}

            result = await client.call_tool("nested_in_dict", {})
            assert not result.is_error, result.content
            assert images(result) == ["image/png", "image/png"]
            assert result.structured_content == {
                "plots": ["<image: content[0]>", "<image: content[1]>"],
                "values": [1, 2],
            }
    assert plt.get_fignums() == []  # every figure was closed after drawing


def test_an_older_client_gets_all_of_the_data_as_text() -> None:
    """Before 2025-06-18 there is no structured content: the JSON text block still carries the data."""
    # Sessionless at 2025-03-26, what POST / without a version header gets (through the seam, in memory).
    with in_memory(build(), session=False, version="2025-03-26") as client:
        result = client.call_tool("as_dict")
    assert not result["isError"], result
    assert "structuredContent" not in result
    assert [block["type"] for block in result["content"]] == ["image", "text"]
    assert json.loads(result["content"][-1]["text"]) == {"plot": "<image: content[0]>", "data": RECORDS, "n": 2}


@pytest.mark.anyio
async def test_a_placeholder_names_the_link_of_a_picture_kept_as_a_resource() -> None:
    """Pictures over max_inline_bytes become resource links in their own places; the notes come after them,
    so every ``"<image: content[N]>"`` still names the picture's block (trial24 F1: it named the note)."""
    server = MCPServer("sci", max_inline_bytes=1024)

    @server.tool()
    def plots() -> object:
        """Two plots with their data."""
        return {"plot": figure(), "t": [0.0, 1.0], "more": [figure(), PILImage.new("RGB", (2, 2))]}

    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("plots", {})
            assert not result.is_error, result.content
            data = result.structured_content
            assert data["t"] == [0.0, 1.0]
            named = [data["plot"], *data["more"]]
            assert named == ["<image: content[0]>", "<image: content[1]>", "<image: content[2]>"]
            blocks = [result.content[int(name[len("<image: content[") : -2])] for name in named]
            assert [block.type for block in blocks] == ["resource_link", "resource_link", "image"]
            for link in blocks[:2]:
                read = await client.read_resource(link.uri)
                assert read.contents[0].mime_type == "image/png"
                assert read.contents[0].blob  # the picture itself, not the note
            assert [block.type for block in result.content[3:]] == ["text", "text", "text"]
            assert "larger than max_inline_bytes" in result.content[3].text
            assert last_text(result) == data
    plt.close("all")
