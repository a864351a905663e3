"""``nanohubmcp run`` processes of one test app sharing a Redis, each on a port of its own and without nginx in
front: for the tests that stop one of them, or write into Redis, and read or resume a stream on another."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from cluster import Server
from redis_server import free_port


@contextlib.contextmanager
def app_processes(app: Path, state_url: str, workdir: Path, count: int = 2) -> Iterator[list[Server]]:
    """``count`` processes ``nanohubmcp run APP --port P --state-url STATE_URL`` (no access log), each in a session
    of its own, all keeping their state folder in ``workdir/state`` (logs: ``workdir/server-P.log``). Yields them
    once each listens (:meth:`Server.wait_listening`: 30 s at most); on leaving, the group of each one still
    running is killed (SIGKILL)."""
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(workdir / "state"), "MCP_TOKEN": ""}
    servers: list[Server] = []
    try:
        for _ in range(count):
            servers.append(Server(workdir, free_port(), state_url, env=env, access_log=False, app=app))
        for server in servers:
            server.wait_listening()
        yield servers
    finally:
        for server in servers:
            if server.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.proc.pid, signal.SIGKILL)
                server.proc.wait(10)


@contextlib.contextmanager
def one_app_process(state_url: str, workdir: Path) -> Iterator[Server]:
    """One ``nanohubmcp run`` process of the scale-out app (tests/scaleout/app.py) with its state on ``state_url``
    (no token; its state folder ``workdir/state``; ``$NANOHUBMCP_STATE_URL`` of the test's environment dropped).
    Yields it once it listens; stopped (:meth:`Server.stop`) on leaving."""
    env = {**os.environ, "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(workdir / "state")}
    env.pop("NANOHUBMCP_STATE_URL", None)
    server = Server(workdir, free_port(), state_url, env=env)
    try:
        server.wait_listening()
        yield server
    finally:
        server.stop()


def base(server: Server) -> str:
    """The server's root URL (its ``/mcp`` URL without ``/mcp``)."""
    return server.url.removesuffix("/mcp")


def rest(server: Server, tool: str, arguments: dict[str, Any]) -> httpx.Response:
    """``POST /tools/TOOL`` with ``arguments`` (the REST route; 20 s at most)."""
    return httpx.post(f"{base(server)}/tools/{tool}", json=arguments, timeout=20)


def ready(server: Server) -> httpx.Response:
    """``GET /readyz`` (10 s at most)."""
    return httpx.get(f"{base(server)}/readyz", timeout=10)
