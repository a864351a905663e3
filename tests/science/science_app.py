"""A small science server for the route tests (served over HTTP in-process, or run over stdio)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nanohubmcp import MCPServer

ARRAY = np.arange(12, dtype=float).reshape(3, 4) / 4
FRAME = pd.DataFrame({"x": [1.5, 2.5], "when": pd.to_datetime(["2026-01-01", "2026-01-02"])})

server = MCPServer("science-routes", max_inline_bytes=4096)


@server.tool()
def array() -> np.ndarray:
    """A 3x4 array."""
    return ARRAY


@server.tool()
def frame() -> pd.DataFrame:
    """A two-row table."""
    return FRAME


@server.tool()
def figure() -> Figure:
    """A 2x1 inch figure at 50 dpi."""
    fig = Figure(figsize=(2, 1), dpi=50)
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


@server.tool()
def big(n: int) -> np.ndarray:
    """n floats: over max_inline_bytes from a few hundred on."""
    return np.arange(n) / 3


if __name__ == "__main__":
    server.run()
