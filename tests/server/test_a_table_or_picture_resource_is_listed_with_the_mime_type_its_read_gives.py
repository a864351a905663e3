"""trial63 F7: a resource function annotated to return a table, an array, a Quantity, a figure or a PIL image is
listed with the MIME type its read gives, as one annotated ``-> dict`` is (trial60 F1): ``text/csv`` for a pandas
DataFrame, Series or Index, ``application/json`` for a numpy array or a pint Quantity, ``image/png`` for a matplotlib
Figure or Axes and a PIL Image. Before, ``resources/list`` gave none of them a ``mimeType``."""

from __future__ import annotations

import pytest
from listed_mime_types import listing

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pint = pytest.importorskip("pint")
pytest.importorskip("matplotlib")
PIL_Image = pytest.importorskip("PIL.Image")

from matplotlib.axes import Axes  # noqa: E402  (after the skip: matplotlib is optional)
from matplotlib.figure import Figure  # noqa: E402

ureg = pint.UnitRegistry()
EXPECTED = {
    "data://frame": "text/csv", "data://series": "text/csv", "data://index": "text/csv",
    "data://array": "application/json", "data://quantity": "application/json",
    "data://figure": "image/png", "data://axes": "image/png", "data://image": "image/png",
}


def build() -> MCPServer:
    server = MCPServer("listed", provenance=False)

    @server.resource("data://frame")
    def frame() -> pd.DataFrame:
        return pd.DataFrame({"x": [1.0, 2.0]})

    @server.resource("data://series")
    def series() -> pd.Series:
        return pd.Series([1.0, 2.0], name="x")

    @server.resource("data://index")
    def index() -> pd.Index:
        return pd.Index([1, 2])

    @server.resource("data://array")
    def array() -> np.ndarray:
        return np.arange(3.0)

    @server.resource("data://quantity")
    def quantity() -> pint.Quantity:
        return 1.12 * ureg.eV

    @server.resource("data://figure")
    def figure() -> Figure:
        fig = Figure(figsize=(1, 1), dpi=20)
        fig.add_subplot().plot([0, 1])
        return fig

    @server.resource("data://axes")
    def axes() -> Axes:
        return Figure(figsize=(1, 1), dpi=20).add_subplot()

    @server.resource("data://image")
    def image() -> PIL_Image.Image:
        return PIL_Image.new("RGB", (2, 2))

    return server


def test_each_is_listed_with_the_mime_type_its_read_gives() -> None:
    with listing(build()) as session:
        listed = session.resources()
        assert listed == EXPECTED, listed
        for uri, mime in EXPECTED.items():
            [read] = session.read(uri)
            assert read["mimeType"] == mime, (uri, read)
