"""A server with ``job_executor="submit"``, run as a real subprocess (so it can be killed with
SIGKILL and started again): ``python submit_server.py STATE_DIR`` prints the banner of
``MCPServer.run`` with its port (read by ``jobs.job_server.ServerProcess``-like helpers)."""

from __future__ import annotations

import sys

from nanohubmcp import MCPServer
from nanohubmcp.nanohub import SubmitRun

WAIT = "import os, sys, time\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.05)\nprint('found', sys.argv[1])"


def main() -> None:
    server = MCPServer("restartable-submit", state_dir=sys.argv[1], job_executor="submit")

    @server.async_tool()
    def wait_for_file(path: str) -> SubmitRun:
        """A run that ends once ``path`` exists."""
        return SubmitRun([sys.executable, "-c", WAIT, path])

    server.run(host="127.0.0.1", port=0)


if __name__ == "__main__":
    main()
