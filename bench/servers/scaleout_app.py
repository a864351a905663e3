"""The benchmark tool for bench/scaleout.py, served by ``nanohubmcp run`` (one or several workers,
memory or Redis state): ``add(a, b)``, as in servers/ours.py. ``SCALEOUT_PROVENANCE=0`` in the
environment turns the provenance records off (to compare the state stores without them)."""

from __future__ import annotations

import os

from nanohubmcp import MCPServer

server = MCPServer("bench-scaleout", provenance=os.environ.get("SCALEOUT_PROVENANCE", "1") != "0")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b
