"""An ``np.ndarray`` / ``pd.DataFrame`` / ``pd.Series`` parameter keeps its docstring's description (trial62 F8).

Before, the shape text these types bring ("an array of numbers ...") took the place of the author's text, so the
model never saw what the values are or their units ("Times in seconds."). Now the author's text comes first and the
shape text follows it; with no docstring text the shape text stands alone, and an ``Annotated`` text still wins.
"""

from __future__ import annotations

from typing import Annotated

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

ARRAY = "an array of numbers (nested arrays for more dimensions)"
TABLE = "a table: one object per row, column name to value"


def build() -> MCPServer:
    server = MCPServer("described")

    @server.tool()
    def google(t: np.ndarray, df: pd.DataFrame, s: pd.Series, xs: list[float],
               w: np.ndarray | None = None) -> float:
        """Google style.

        Args:
            t: Times in seconds.
            df: Measurements, one record per sample
            s: Energies in eV.
            xs: Positions in nm.
            w: Optional weights.
        """
        return 0.0

    @server.tool()
    def numpy_style(rate: float, t: np.ndarray) -> float:
        """NumPy style.

        Parameters
        ----------
        rate : float
            Decay rate in 1/s.
        t : np.ndarray
            Times in seconds.
        """
        return 0.0

    @server.tool()
    def bare(t: np.ndarray, a: Annotated[np.ndarray, "Lattice vectors in Å."]) -> float:
        """No parameter descriptions in the docstring."""
        return 0.0

    return server


def properties(tools: list[dict], name: str) -> dict:
    return next(tool for tool in tools if tool["name"] == name)["inputSchema"]["properties"]


def test_the_authors_description_comes_first_and_the_shape_text_follows() -> None:
    with in_memory(build()) as client:
        tools = client.list_tools()
    google = properties(tools, "google")
    assert google["t"]["description"] == f"Times in seconds. Given as {ARRAY}."
    assert google["df"]["description"] == f"Measurements, one record per sample. Given as {TABLE}."
    assert google["s"]["description"] == "Energies in eV. Given as the values of a series, in order."
    assert google["xs"]["description"] == "Positions in nm."
    assert google["w"]["description"] == f"Optional weights. Given as {ARRAY}."
    numpy_style = properties(tools, "numpy_style")
    assert numpy_style["rate"]["description"] == "Decay rate in 1/s."
    assert numpy_style["t"]["description"] == f"Times in seconds. Given as {ARRAY}."
    bare = properties(tools, "bare")
    assert bare["t"]["description"] == ARRAY
    assert bare["a"]["description"] == "Lattice vectors in Å."
