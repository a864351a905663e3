"""The banner of a ``--workers N`` server says how many processes serve its port (``... listening on
127.0.0.1:P, served by 2 processes``): it read as a single process's, the user left to count the workers in
``ps``. A single process's banner is as it was. Real ``nanohubmcp run`` processes on a real redis-server."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from cluster import Server
from redis_server import RedisServer, free_port
from support import wait_until

pytestmark = pytest.mark.timeout(90)


def first_line(server: Server) -> str:
    """The banner's first line, once printed (the server still running)."""
    found = wait_until(lambda: server.proc.poll() is not None or re.search(r"^MCP Server .*$", server.text(), re.M),
                       "the banner", 30)
    assert server.proc.poll() is None, server.text()
    assert isinstance(found, re.Match)
    return found.group(0)


@pytest.mark.parametrize(("workers", "ending"), [(2, ", served by 2 processes"), (1, "")])
def test_the_banner_says_how_many_processes_serve(redis_server: RedisServer, tmp_path: Path, workers: int,
                                                 ending: str) -> None:
    port = free_port()
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    server = Server(tmp_path, port, redis_server.url, workers=workers, env=env, access_log=False)
    try:
        line = first_line(server)
        assert line == f"MCP Server 'scaleout-test' v1.0.0 listening on 127.0.0.1:{port}{ending}", server.text()
    finally:
        server.stop()
