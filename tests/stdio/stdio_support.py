"""Helpers for the stdio tests: the command lines desktop clients would run, and the two official
stdio clients (``mcp.client.stdio`` speaks the 2025-11-25 handshake era, fastmcp 4.x's stdio client
the stateless 2026-07-28 era)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from support import ROOT, fastmcp_client, official_client, run_command

if TYPE_CHECKING:
    from nanohubmcp import MCPServer

__all__ = ["EXAMPLES", "FEATURES_APP", "ROOT", "Piped", "bridge_command", "example_command", "fastmcp_client", "lab",
           "official_client", "run_command", "second_answer", "served", "until", "until_streaming", "upstream_at"]

EXAMPLES = ROOT / "examples"
FEATURES_APP = Path(__file__).resolve().parent / "features_app.py"


def example_command(name: str) -> list[str]:
    """``python examples/<name>/start_mcp.py --transport stdio``."""
    return [sys.executable, str(EXAMPLES / name / "start_mcp.py"), "--transport", "stdio"]


class Piped:
    """A stdio process (a server, a bridge) a test drives: JSON lines to its stdin, its stdout read a line at a time,
    its stderr written to ``log``."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process, self.log = process, log

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def line(self) -> Any:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())


def bridge_command(url: str, *options: str) -> list[str]:
    """``python -m nanohubmcp bridge URL [options]``."""
    return [sys.executable, "-m", "nanohubmcp", "bridge", url, *options]


@contextlib.contextmanager
def served(app: Path | str, **options: Any) -> Iterator[str]:
    """Load an app file's ``server`` in this process and serve it on 127.0.0.1:<free port>;
    yields its base URL."""
    from nanohubmcp.nanohub.child import load_app

    server = load_app(app)
    server.start(host="127.0.0.1", port=0, **options)
    try:
        assert server.url is not None
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def upstream_at(rules: list[Any], port: int = 0) -> Iterator[str]:
    """A Tornado application of ``rules`` (a stand-in upstream server or proxy) served on 127.0.0.1:``port`` (0: a
    free port) by a loop of its own thread; yields its ``/mcp`` URL."""
    import socket

    import tornado.web
    from tornado.httpserver import HTTPServer
    from tornado.netutil import bind_sockets

    loop = asyncio.new_event_loop()
    sock = bind_sockets(port, "127.0.0.1", family=socket.AF_INET)[0]
    port = sock.getsockname()[1]
    started = threading.Event()
    server: list[HTTPServer] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        http = HTTPServer(tornado.web.Application(rules))
        http.add_sockets([sock])
        server.append(http)
        loop.call_soon(started.set)
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(30)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        loop.call_soon_threadsafe(server[0].stop)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def lab(description: str) -> MCPServer:
    """A server a notebook would re-run with a changed function: the tool ``density`` described by ``description``,
    the resource ``lab://notes`` and the prompt ``explain``, both reading ``description``."""
    from nanohubmcp import MCPServer

    server = MCPServer("lab")

    def density(mass_g: float, volume_cm3: float) -> float:
        return mass_g / volume_cm3

    server.add_tool(density, name="density", description=description)

    @server.resource("lab://notes")
    def notes() -> str:
        """Notes."""
        return description

    @server.prompt()
    def explain() -> str:
        """Explain."""
        return description

    return server


async def until(condition: Callable[[], bool], what: str | Callable[[], str], seconds: float = 30) -> None:
    """Poll ``condition`` every 0.02 s on the running loop until it is true; fail with ``what`` (or what it
    returns, said then) after ``seconds``."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what() if callable(what) else what
        await asyncio.sleep(0.02)


async def until_streaming(server: MCPServer, seconds: float = 30) -> None:
    """Wait until a session of ``server`` (served in this process) has its GET stream open: a bridge opens its
    session's right after the handshake."""
    await until(lambda: any(s.standalone is not None and s.standalone.sink is not None
                            for s in server.core.sessions.all()), "the bridge opened no GET stream", seconds)


def second_answer(command: list[str], first: dict[str, Any], second: dict[str, Any],
                  within: float) -> tuple[str, float, str]:
    """Run the bridge ``command``, write ``first`` (read its answer) then ``second``, stdin left open (a client
    closing it ends the bridge before a resume); ``(second's answer line, seconds it took, the bridge's
    stderr)``, the line ``""`` when none came ``within`` seconds (the bridge is killed)."""
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as bridge:
        assert bridge.stdin is not None
        assert bridge.stdout is not None
        bridge.stdin.write(json.dumps(first).encode() + b"\n")
        bridge.stdin.flush()
        assert bridge.stdout.readline()
        bridge.stdin.write(json.dumps(second).encode() + b"\n")
        bridge.stdin.flush()
        sent = time.monotonic()
        with ThreadPoolExecutor(1) as reader:
            read = reader.submit(bridge.stdout.readline)
            try:
                line = read.result(within)
            except TimeoutError:
                line = b""
            finally:
                if not read.done():
                    bridge.kill()  # (its readline ends)
        took = time.monotonic() - sent
        err = bridge.communicate(timeout=30)[1]  # (stdin closed: the bridge ends)
    return line.decode(), took, err.decode()
