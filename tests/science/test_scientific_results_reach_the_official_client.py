"""Figures, arrays and frames (small and large) through a real server and the official ``mcp`` client."""

from __future__ import annotations

import base64
import io
import json

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
Image = pytest.importorskip("PIL.Image")

BIG_ARRAY = np.random.default_rng(1).standard_normal(2_000_000)
BIG_FRAME = pd.DataFrame(
    {
        "x": np.arange(300_000, dtype=float) / 7,
        "n": np.arange(300_000),
        "label": np.where(np.arange(300_000) % 2 == 0, "even", "odd"),
    }
)
SMALL = np.linspace(0.0, 1.0, 11).reshape(11, 1) * np.array([[1.0, 2.0, 3.0]])
FRAME = pd.DataFrame(
    {"t": pd.date_range("2026-01-01", periods=4, freq="D"), "y": [1.5, np.nan, 3.0, 4.25]},
    index=pd.Index(["a", "b", "c", "d"], name="key"),
)


def build() -> MCPServer:
    server = MCPServer("science-e2e")

    @server.tool()
    def plot(width: float = 6.4, height: float = 4.8, dpi: float = 100) -> object:
        """A line plot of the given size in inches and dpi."""
        fig, ax = plt.subplots(figsize=(width, height), dpi=dpi)
        ax.plot([0, 1, 2], [0, 1, 4])
        return fig

    @server.tool()
    def array() -> object:
        """A small 2-D array."""
        return SMALL

    @server.tool()
    def frame() -> object:
        """A small frame with dates, a NaN and a named index."""
        return FRAME

    @server.tool()
    def big_array() -> object:
        """Two million floats."""
        return BIG_ARRAY

    @server.tool()
    def big_frame() -> object:
        """300,000 rows."""
        return BIG_FRAME

    return server


def png_size(data: str) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        assert image.format == "PNG"
        return image.size


@pytest.mark.anyio
async def test_a_figure_arrives_as_a_png_of_its_own_pixel_size_and_is_closed() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            default = await client.call_tool("plot", {})
            wide = await client.call_tool("plot", {"width": 3, "height": 2, "dpi": 150})
    assert [b.type for b in default.content] == ["image"]
    assert default.content[0].mime_type == "image/png"
    assert png_size(default.content[0].data) == (640, 480)
    assert png_size(wide.content[0].data) == (450, 300)
    assert plt.get_fignums() == []


@pytest.mark.anyio
async def test_an_array_and_a_frame_arrive_complete_and_equal() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            array = await client.call_tool("array", {})
            frame = await client.call_tool("frame", {})
    assert not array.is_error
    np.testing.assert_array_equal(np.array(array.structured_content["result"]), SMALL)
    assert "shape (11, 3)" in array.content[0].text
    assert "float64" in array.content[0].text
    assert json.loads(array.content[-1].text) == array.structured_content
    assert frame.structured_content["result"] == [
        {"key": "a", "t": "2026-01-01T00:00:00", "y": 1.5},
        {"key": "b", "t": "2026-01-02T00:00:00", "y": None},
        {"key": "c", "t": "2026-01-03T00:00:00", "y": 3.0},
        {"key": "d", "t": "2026-01-04T00:00:00", "y": 4.25},
    ]
    assert "2026-01-03" in frame.content[0].text
    assert "key" in frame.content[0].text
    for result in (array, frame):
        assert "array(" not in str(result.content)


@pytest.mark.anyio
async def test_large_results_arrive_as_readable_resource_links_equal_to_the_originals() -> None:
    with serve(build()) as url, anyio.fail_after(110):
        async with mcp_client(url + "mcp") as client:
            array = await client.call_tool("big_array", {})
            frame = await client.call_tool("big_frame", {})
            links = {
                name: [b for b in r.content if b.type == "resource_link"]
                for name, r in (("array", array), ("frame", frame))
            }
            assert all(len(found) == 1 for found in links.values()), links
            array_read = await client.read_resource(links["array"][0].uri)
            frame_read = await client.read_resource(links["frame"][0].uri)
        async with mcp_client(url + "mcp") as stranger:
            with pytest.raises(Exception, match=r"not found|Unknown|No resource"):
                await stranger.read_resource(links["array"][0].uri)
    assert array.structured_content is None
    assert frame.structured_content is None
    assert "2000000 values" in array.content[0].text
    assert links["array"][0].mime_type == "application/json"
    np.testing.assert_array_equal(np.array(json.loads(array_read.contents[0].text)), BIG_ARRAY)
    assert links["frame"][0].mime_type == "text/csv"
    assert frame_read.contents[0].mime_type == "text/csv"
    back = pd.read_csv(io.StringIO(frame_read.contents[0].text), index_col=0)
    pd.testing.assert_frame_equal(back, BIG_FRAME)
