"""Stand-ins for the parts of a nanoHUB session that do not exist here (used by conftest and tests).

* a login shell whose ``~/.bash_profile`` puts a test ``bin`` directory first on PATH
  (a login shell resets PATH from /etc/profile, as on the hub);
* ``use``: a bash script printing a module listing to stderr (``use -e X`` logs and succeeds);
* ``wrwroxy``: a small Python TCP forwarder taking wrwroxy's options, logging its argv;
* ``conda``: a script printing ``conda info --json`` for environments the test creates;
* a session directory with a ``resources`` file.

Every process the launcher tests start carries ``NANOHUBMCP_TEST_MARK=<uuid>`` in its
environment, so the tests can find any survivor in ``/proc`` whatever its parent.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

WRWROXY_STANDIN = """\
#!{python}
import argparse, asyncio, os, sys

parser = argparse.ArgumentParser()
parser.add_argument("--listenHost", required=True)
parser.add_argument("--listenPort", type=int, required=True)
parser.add_argument("--forwardHost", required=True)
parser.add_argument("--forwardPort", type=int, required=True)
parser.add_argument("--stream-log", action="store_true")
args = parser.parse_args()
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write("wrwroxy " + " ".join(sys.argv[1:]) + "\\n")


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()


async def handle(client_reader, client_writer):
    try:
        up_reader, up_writer = await asyncio.open_connection(args.forwardHost, args.forwardPort)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, up_writer), pipe(up_reader, client_writer))
    up_writer.close()
    client_writer.close()


async def main():
    server = await asyncio.start_server(handle, args.listenHost, args.listenPort)
    async with server:
        await server.serve_forever()


asyncio.run(main())
"""

USE_STANDIN = """\
#!/bin/bash
if [ "$1" = "-e" ]; then
    echo "use -e $2" >> "$STANDIN_LOG"
    exit 0
fi
{body}
"""

CONDA_STANDIN = """\
#!{python}
import json, sys
assert sys.argv[1:] == ["info", "--json"], sys.argv
print(json.dumps({info}))
"""


def free_port() -> int:
    """A port that was free a moment ago (bound to 0 and released; tests accept the race)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@dataclass
class Hub:
    """A fake session: HOME, bin, session dir, temp dir and the environment to run in."""

    root: Path
    mark: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        self.bin = self.root / "bin"
        self.home = self.root / "home"
        self.sessiondir = self.root / "session"
        self.tmpdir = self.root / "tmp"
        self.log = self.root / "standin.log"
        for folder in (self.bin, self.home, self.sessiondir, self.tmpdir):
            folder.mkdir()
        self.log.touch()
        (self.home / ".bash_profile").write_text(f'export PATH="{self.bin}:$PATH"\n')

    def env(self, *, session: bool = True, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR", "MCP_PORT")
            and not k.startswith("JPY_")
        }
        env.update(
            HOME=str(self.home),
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}",
            TMPDIR=str(self.tmpdir),
            PYTHONPATH=str(REPO),
            STANDIN_LOG=str(self.log),
            NANOHUBMCP_TEST_MARK=self.mark,
        )
        if session:
            env.update(SESSION="4242", SESSIONDIR=str(self.sessiondir))
        env.update(extra)
        return env

    def resources(self, text: str = "") -> None:
        text = (
            text or 'hub_url "https://hub.example.org/"\r\nfilexfer_port 38123\r\nfilexfer_cookie c00kie\r\n'
        )
        (self.sessiondir / "resources").write_text(text)

    def use(
        self, listing: str | None = "wrwroxy-0.9 wrwroxy-0.10: wrwroxy-0.2", *, hang: bool = False
    ) -> None:
        if hang:
            body = "sleep 60 &\nsleep 60"
        else:
            body = f"cat >&2 <<'LIST'\nAvailable environments:\n  anaconda-7 python-3.11 {listing}\nLIST"
        write_executable(self.bin / "use", USE_STANDIN.format(body=body))

    def wrwroxy(self) -> None:
        write_executable(self.bin / "wrwroxy", WRWROXY_STANDIN.format(python=sys.executable))

    def conda(self, envs: dict[str, Path], root: Path | None = None) -> None:
        info = {"envs": [str(p) for p in envs.values()], "root_prefix": str(root or self.root / "conda")}
        write_executable(
            self.bin / "conda", CONDA_STANDIN.format(python=sys.executable, info=json.dumps(info))
        )

    def app(self, name: str, source: str) -> Path:
        path = self.root / name
        path.write_text(textwrap.dedent(source))
        return path

    def survivors(self) -> list[int]:
        """PIDs of live processes carrying this hub's mark (zombies excluded)."""
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                if f"NANOHUBMCP_TEST_MARK={self.mark}".encode() not in (proc / "environ").read_bytes().split(
                    b"\0"
                ):
                    continue
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                found.append(int(proc.name))
        return found

    def kill_survivors(self) -> None:
        for pid in self.survivors():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


class Launch:
    """``start_mcp`` running as a real process, its output captured in files."""

    def __init__(self, hub: Hub, args: list[str], env: dict[str, str]) -> None:
        self.out_path = hub.root / "launcher.out"
        self.err_path = hub.root / "launcher.err"
        with self.out_path.open("wb") as out, self.err_path.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "nanohubmcp.nanohub.launcher", *args],
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=hub.root,
            )

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = 30.0) -> bool:
        """True once ``text`` is on stdout; False if the launcher exits or time runs out first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.stdout:
                return True
            if self.proc.poll() is not None:
                return text in self.stdout
            time.sleep(0.05)
        return False

    def wait(self, timeout: float = 30.0) -> int:
        return self.proc.wait(timeout=timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


GOOD_APP = """\
from nanohubmcp import MCPServer

server = MCPServer("launcher-test", version="1.2.3")


@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b
"""


GATED_APP = """\
import pathlib, time

here = pathlib.Path(__file__).parent
(here / "importing").touch()
while not (here / "go").exists():  # the test lets the import finish
    time.sleep(0.02)
"""
"""Prepend to an app: its import writes ``importing`` beside it, then waits until the test creates ``go``
(the app is known not to listen yet, without a sleep deciding it)."""


def wait_for_file(path: Path, run: Launch, timeout: float = 30.0) -> None:
    """Wait until ``path`` exists (the launcher must stay alive meanwhile)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert run.proc.poll() is None, run.stderr
        assert time.monotonic() < deadline, f"{path} did not appear:\n{run.stderr}"
        time.sleep(0.02)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


async def _call_add(url: str, transport: str) -> tuple[list[str], str]:
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    connect = sse_client(url) if transport == "sse" else streamable_http_client(url)
    async with connect as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        result = await session.call_tool("add", {"a": 2, "b": 3})
    text = "".join(getattr(block, "text", "") for block in result.content)
    return [tool.name for tool in tools.tools], text


def call_add(url: str, transport: str = "http", timeout: float = 30.0) -> tuple[list[str], str]:
    """Connect the official MCP client (Streamable HTTP or legacy ``"sse"``), list tools, call add(2, 3)."""
    import asyncio

    return asyncio.run(asyncio.wait_for(_call_add(url, transport), timeout))
