"""A ``submit`` job that waits for a file, for the tests of the per-caller budget of batch jobs' inputs."""

from __future__ import annotations

import sys

from nanohubmcp import MCPServer
from nanohubmcp.nanohub import SubmitRun


def add_held(server: MCPServer) -> None:
    """Register the async tool ``held(data, go)`` on ``server``: a ``submit`` run that waits until ``go`` exists."""

    @server.async_tool()
    def held(data: str, go: str) -> SubmitRun:
        """Runs until ``go`` exists."""
        wait = f"import os,time\nwhile not os.path.exists({go!r}): time.sleep(0.05)\nprint({len(data)})"
        return SubmitRun([sys.executable, "-c", wait])
