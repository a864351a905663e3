"""Shared test helpers (import with ``from support import serve, mcp_client``).

Real servers on loopback ports and the official ``mcp`` client over HTTP and stdio (a client in this
process, without sockets, is the package's own: :mod:`nanohubmcp.testing`).

``serve(server, **options)`` starts an ``MCPServer`` in the background on 127.0.0.1 with a free
port (bound by the server itself, no probe-then-close race) and stops it afterwards.
``mcp_client(url)`` is an async context manager yielding an initialized official
``mcp.ClientSession`` over Streamable HTTP (``transport="sse"`` for legacy SSE).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import pytest

from nanohubmcp import MCPServer

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
FAULTHANDLER = {"PYTHONFAULTHANDLER": "1"}
"""Part of the environment of every Python process the tests start (``conftest.py`` sets it for those
that inherit the test run's environment; a test that builds an environment of its own adds it): a child
dying of a fatal signal (SIGSEGV, exit -11) prints every thread's stack on its stderr, not nothing."""


def installed(found: str | None, what: str) -> str:
    """The path of a system program the tests start (``found``), or skip (locally) / fail (under ``CI``)
    naming the script that installs it, so that a missing install step cannot pass as green."""
    if found is None:
        message = f"{what} is not installed: run scripts/install-test-system-deps (as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def wait_until(condition: Callable[[], T], what: str, timeout: float = 60) -> T:
    """Poll ``condition`` every 0.05 s until it returns something true, and return that; fail naming ``what``
    after ``timeout`` seconds. The test's way to wait for something, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for: {what}")
        time.sleep(0.05)
    return value


def process_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (the state first, the parent's pid next), or None
    once the process is gone. A process can end while it is read: reaped before the open, the file is not there
    (``FileNotFoundError``); reaped between the open and the read, the read fails with ``ESRCH``
    (``ProcessLookupError``). Both mean "gone", never an error of the test."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended: a zombie (ended, not yet reaped; this VM's pid 1 reaps
    slowly) or a dead process is not running (Linux's /proc)."""
    fields = process_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


DEAF_APP = """
import sys, time
from nanohubmcp import MCPServer

server = MCPServer("sleepy")

@server.tool()
def nap() -> str:
    '''Sleeps for a minute, deaf to cancellation.'''
    print("nap: running", file=sys.stderr, flush=True)
    time.sleep(60)
    return "rested"
"""
"""An app file whose sync tool ``nap`` sleeps 60 s on a worker thread, saying ``nap: running`` on stderr first: a
call a stop must leave behind."""

BLOCKING_APP = """
import time
from pathlib import Path
from nanohubmcp import MCPServer
server = MCPServer("block")

@server.tool()
async def block(seconds: float) -> str:
    '''Blocks the event loop.'''
    Path(__file__).with_name("started").touch()
    time.sleep(seconds)
    return "done"
"""
"""An app file whose ``async def`` tool ``block(seconds)`` blocks the event loop (``time.sleep``), touching
``started`` beside the file first."""


def _signal_mask(pid: int, field: str) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(dict(line.split(":", 1) for line in status if ":" in line)[field], 16)


def wait_until_caught(pid: int, sig: int) -> None:
    """Until process ``pid`` has a handler for ``sig`` (Linux's /proc/PID/status)."""
    wait_until(lambda: _signal_mask(pid, "SigCgt") & (1 << (sig - 1)), f"a handler for signal {sig}", 10)


def wait_until_delivered(pid: int, sig: int) -> None:
    """Until ``sig`` is no longer pending for process ``pid`` (Linux's /proc/PID/status): a second signal sent
    while the first is pending is lost."""
    wait_until(lambda: not (_signal_mask(pid, "ShdPnd") | _signal_mask(pid, "SigPnd")) & (1 << (sig - 1)),
               f"signal {sig} delivered", 10)  # fmt: skip


def wait_until_answered(server: MCPServer, session_id: str, event_id: str, timeout: float = 30) -> None:
    """Wait until the response stream that ``event_id`` (``<stream id>.<n>``) belongs to holds its final message
    on ``server`` (served in this process): the call ended, its messages kept for a client that resumes."""
    stream_id = event_id.rsplit(".", 1)[0]

    def answered() -> bool:
        session = server.core.sessions.get(session_id)
        stream = session.streams.get(stream_id) if session is not None else None
        return stream is not None and stream.done

    wait_until(answered, f"the call on stream {stream_id} of session {session_id} was answered", timeout)


@contextlib.contextmanager
def serve_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve a standard-library request ``handler`` (a stand-in for another party's server) on
    127.0.0.1:<free port> from a thread; yields its origin (``http://127.0.0.1:<port>``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.contextmanager
def serve(server: MCPServer, **options: Any) -> Iterator[str]:
    """Serve ``server`` on 127.0.0.1:<free port>; yields the base URL (trailing slash)."""
    options.setdefault("host", "127.0.0.1")
    options.setdefault("port", 0)
    server.start(**options)
    try:
        assert server.url is not None
        yield server.url
    finally:
        server.stop()


class ScriptServer:
    """A server script running in a process of its own (see :func:`script_server`)."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, url: str) -> None:
        self.process = process
        self.log = log
        self.url = url
        """Its base URL (trailing slash)."""

    @property
    def output(self) -> str:
        """What it printed so far (stdout and stderr)."""
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: a server stuck in one C call (a big-integer power) never runs its SIGTERM handler."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)


@contextlib.contextmanager
def script_server(source: str, *args: str, directory: Path, start_seconds: float = 90.0) -> Iterator[ScriptServer]:
    """Run ``source``, a script ending in ``server.run(host="127.0.0.1", port=0)``, with this Python in a
    process of its own (``args`` are its ``sys.argv[1:]``), from ``directory``: it imports nanohubmcp as the
    tests do (``PYTHONPATH``, else the installed package), not from the folder it runs in. Yields it once its
    banner says where it listens; it is killed afterwards (see :meth:`ScriptServer.kill`)."""
    script = directory / "server_script.py"
    script.write_text(source)
    with _listening([sys.executable, "-u", str(script), *args], directory / "server_script.log", directory,
                    start_seconds) as served:
        yield served


@contextlib.contextmanager
def app_server(app: Path, *args: str, log: Path, start_seconds: float = 90.0) -> Iterator[ScriptServer]:
    """``nanohubmcp run APP --host 127.0.0.1 --port 0 ARGS`` with this Python, in a process of its own writing
    to ``log``, from APP's folder: it imports nanohubmcp as the tests do (``PYTHONPATH``, else the installed
    package), not from the folder it runs in. Yields it once its banner says where it listens; it is killed
    afterwards."""
    command = [sys.executable, "-u", "-m", "nanohubmcp", "run", str(app), "--host", "127.0.0.1", "--port", "0", *args]
    with _listening(command, log, app.parent, start_seconds) as served:
        yield served


@contextlib.contextmanager
def start_mcp_server(app: Path, *args: str, log: Path, start_seconds: float = 90.0) -> Iterator[ScriptServer]:
    """``start_mcp --app APP --host 127.0.0.1 --port 0 ARGS`` (the launcher and its child) with this Python, as
    :func:`app_server` runs ``nanohubmcp run``."""
    command = [sys.executable, "-u", "-m", "nanohubmcp.nanohub.launcher", "--app", str(app), "--host", "127.0.0.1",
               "--port", "0", *args]
    with _listening(command, log, app.parent, start_seconds) as served:
        yield served


@contextlib.contextmanager
def command_server(*args: str, log: Path, cwd: Path, start_seconds: float = 90.0) -> Iterator[ScriptServer]:
    """``nanohubmcp ARGS --host 127.0.0.1`` (a serving subcommand, its arguments and ``--port``) with this Python,
    in a process of its own writing to ``log``, from ``cwd``, in this process's environment. Yields it once its
    banner says where it listens; it is killed afterwards."""
    command = [sys.executable, "-u", "-m", "nanohubmcp", *args, "--host", "127.0.0.1"]
    with _listening(command, log, cwd, start_seconds) as served:
        yield served


@contextlib.contextmanager
def _listening(command: list[str], log: Path, cwd: Path, start_seconds: float) -> Iterator[ScriptServer]:
    import re

    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)
    try:
        deadline = time.monotonic() + start_seconds
        while (match := re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start (exit {process.poll()}):\n{log.read_text()}")
            time.sleep(0.05)
        yield ScriptServer(process, log, f"http://127.0.0.1:{match[1]}/")
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


class Stuck(Exception):
    """A server script did not answer in time (and was killed): see :func:`call_or_kill`."""


async def call_or_kill(served: ScriptServer, client: Any, name: str, arguments: dict[str, Any], seconds: float) -> Any:
    """``client.call_tool(name, arguments)``'s result; when none comes in ``seconds``, ``served`` is killed
    and this raises :class:`Stuck` (use the client from :func:`watched_client`)."""
    import anyio

    try:
        with anyio.fail_after(seconds):
            return await client.call_tool(name, arguments)
    except TimeoutError:
        served.kill()
        raise Stuck(f"{name}({arguments}) was not answered in {seconds:g} s: the server is stuck") from None


@contextlib.asynccontextmanager
async def watched_client(served: ScriptServer) -> AsyncIterator[Any]:
    """:func:`mcp_client` of ``served`` for calls that may find it stuck: a :class:`Stuck` raised inside
    fails the test with its message once the session is closed (the errors of closing a session with a
    killed server are not the failure)."""
    stuck: Stuck | None = None
    try:
        async with mcp_client(served.url + "mcp") as client:
            try:
                yield client
            except Stuck as exc:
                stuck = exc
    except Exception:
        if stuck is None:
            raise
    if stuck is not None:
        raise AssertionError(str(stuck))


def banner_of(script: str, last: str, env: dict[str, str] | None = None, timeout: float = 60) -> tuple[str, str]:
    """Run ``python -c script`` (a script serving with ``server.run()``), read its stdout until a line holds
    ``last``, stop it with Ctrl-C as a user would, and give its stdout and stderr. (A timer calling
    ``server.stop()`` may fire before ``run()`` started on a loaded machine, and the script then serves on.)"""
    import signal

    environment = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=environment) as process:
        assert process.stdout is not None
        lines: list[str] = []
        try:
            timer = threading.Timer(timeout, process.kill)  # a banner that never comes ends the read
            timer.start()
            for line in process.stdout:
                lines.append(line)
                if last in line:
                    break
            timer.cancel()
            process.send_signal(signal.SIGINT)
            rest, err = process.communicate(timeout=timeout)
        finally:
            process.kill()
    return "".join(lines) + rest, err


def rpc_message(method: str, params: dict[str, Any] | None = None, request_id: int | str = 1) -> dict[str, Any]:
    """A JSON-RPC request object."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def tool_call_message(name: str, arguments: dict[str, Any] | None = None, request_id: int | str = 1) -> dict[str, Any]:
    """A ``tools/call`` request object."""
    return rpc_message("tools/call", {"name": name, "arguments": arguments or {}}, request_id)


def post_rpc(
    base: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    session: str | None = None,
    headers: dict[str, str] | None = None,
    path: str = "mcp",
    timeout: float = 10,
) -> dict[str, Any]:
    """POST one JSON-RPC request to ``base + path`` (a plain JSON answer: no ``Accept`` for SSE);
    the response message. For tests of the HTTP route itself or of a server in another process;
    a test of the protocol uses :mod:`nanohubmcp.testing`'s ``MemoryClient`` / ``in_memory``."""
    import json
    import urllib.request

    sent = {"Content-Type": "application/json", **(headers or {})}
    if session is not None:
        sent["Mcp-Session-Id"] = session
    body = json.dumps(rpc_message(method, params)).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, body, sent), timeout=timeout) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def bearer_status(url: str, token: str | None, timeout: float = 10) -> int | None:
    """The HTTP status of ``GET url`` with ``Authorization: Bearer token`` (none when token is None);
    None when nothing answers (connection refused)."""
    import urllib.error
    import urllib.request

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


def call_tool_http(base: str, name: str, arguments: dict[str, Any] | None = None, timeout: float = 10) -> Any:
    """``tools/call`` over ``POST /mcp`` (sessionless); the result."""
    return post_rpc(base, "tools/call", {"name": name, "arguments": arguments or {}}, timeout=timeout)["result"]


@contextlib.asynccontextmanager
async def mcp_client(url: str, *, transport: str = "http", token: str | None = None,
                     **session_options: Any) -> AsyncIterator[Any]:
    """An initialized official ``mcp`` ClientSession connected to ``url`` (sending ``Authorization:
    Bearer token`` when a token is given)."""
    from mcp import ClientSession

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with contextlib.AsyncExitStack() as stack:
        if transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(sse_client(url, headers=headers, timeout=10, sse_read_timeout=30))
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(streamable_http_client(url, http_client=client))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], **session_options))
        await session.initialize()
        yield session


def era_client(base: str, era: str) -> Any:
    """The official client of ``era`` on the server at ``base`` (its URL ending in ``/``): a 2025-11-25 session over
    Streamable HTTP (``era="2025-11-25"``, ``base + "mcp"``) or legacy SSE (``"sse"``, ``base + "sse"``), or the
    stateless ``mcp.Client`` (``"2026-07-28"``). Enter it with ``async with``."""
    if era == "sse":
        return mcp_client(base + "sse", transport="sse")
    if era == "2025-11-25":
        return mcp_client(base + "mcp")
    from mcp import Client

    return Client(base + "mcp", mode="2026-07-28")



# -- stdio clients -------------------------------------------------------------------------------
def run_command(app: Path | str) -> list[str]:
    """``python -m nanohubmcp run APP --transport stdio``."""
    return [sys.executable, "-m", "nanohubmcp", "run", str(app), "--transport", "stdio"]


def refused_run(folder: Path, *arguments: str) -> str:
    """Run ``nanohubmcp run app.py ARGUMENTS`` in ``folder``, its ``app.py`` one that must never be imported;
    assert the command line was refused as a usage error (exit 2) before the app was imported, and return
    what the command wrote on stderr."""
    (folder / "app.py").write_text("raise SystemExit('imported')\n")
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", "app.py", *arguments],
        cwd=folder, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "imported" not in done.stderr
    return done.stderr


@contextlib.asynccontextmanager
async def official_client(
    command: list[str], env: dict[str, str] | None = None, **session_options: Any
) -> AsyncIterator[Any]:
    """An initialized ``mcp.ClientSession`` over ``mcp.client.stdio`` running ``command`` (with ``env``:
    that environment, else the SDK's default, which passes only a few variables such as ``PATH``)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write, **session_options) as session:
        await session.initialize()
        yield session


async def stdio_call(
    arguments: list[str], tool: str, tool_arguments: dict[str, Any], *, cwd: Path, env: dict[str, str] | None = None
) -> tuple[Any, str]:
    """Run ``python ARGUMENTS`` as a stdio server under the official client, call ``tool`` once; returns the
    ``CallToolResult`` and what the server wrote on stderr."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=arguments, cwd=str(cwd),
                                   env=dict(os.environ) if env is None else env)  # fmt: skip
    with tempfile.TemporaryFile("w+") as errors:  # a real file: the server process writes to it
        async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(tool, tool_arguments)
        errors.seek(0)
        return result, errors.read()


@contextlib.contextmanager
def stdio_lines(app: Path, *args: str) -> Iterator[tuple[Callable[[Any], None], queue.Queue[Any]]]:
    """Run the stdio server script ``app`` (with ``args``) in a process of its own, talking raw JSON-RPC
    lines: yields ``send(message)`` and the queue of the messages it wrote; at the end closes its stdin
    and waits for it to exit."""
    proc = subprocess.Popen([sys.executable, str(app), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None
    lines: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(line)) for line in stdout], daemon=True).start()

    def send(message: Any) -> None:
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    try:
        yield send, lines
    finally:
        stdin.close()
        proc.wait(30)


@contextlib.asynccontextmanager
async def fastmcp_client(command: list[str], **client_options: Any) -> AsyncIterator[Any]:
    """A connected ``fastmcp.Client`` over its stdio transport running ``command``."""
    import fastmcp
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(command[0], command[1:], cwd=str(ROOT), keep_alive=False)
    async with fastmcp.Client(transport, **client_options) as client:
        yield client


# -- provenance -------------------------------------------------------------------------------
PROVENANCE_META = "io.nanohub/provenance"


def without_provenance(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` (a tool result on the wire) without the ``_meta`` key naming its provenance
    record, after checking the key names one: every tool result carries it (provenance is on by
    default), so a test comparing a whole result compares the rest."""
    meta = dict(result.get("_meta") or {})
    uri = meta.pop(PROVENANCE_META, None)
    assert isinstance(uri, str), result
    assert uri.startswith("nanohubmcp://provenance/"), uri
    rest = {key: value for key, value in result.items() if key != "_meta"}
    if meta:
        rest["_meta"] = meta
    return rest


async def ended_job(client: Any, started: Any, seconds: float = 90) -> tuple[dict[str, Any], dict[str, Any]]:
    """A job started through the official ``client`` (``started``: the call's answer, its handle):
    what ``get_job_result`` answers once it ended, and its provenance record once that ended too
    (both polled, for at most ``seconds`` in all)."""
    import json

    import anyio

    job_id = started.structured_content["job_id"]
    uri = started.meta[PROVENANCE_META]
    with anyio.fail_after(seconds):
        while (answer := await client.call_tool("get_job_result", {"job_id": job_id})).structured_content.get(
            "status"
        ) == "running":
            await anyio.sleep(0.05)
        while (record := json.loads((await client.read_resource(uri)).contents[0].text))["status"] == "working":
            await anyio.sleep(0.05)
    return answer.structured_content, record


def post_tool(url: str, tool: str, arguments: dict[str, Any]) -> Any:
    """``POST <url>tools/<tool>`` (REST) with ``arguments``: its JSON answer (an HTTP error raises)."""
    import urllib.request

    request = urllib.request.Request(url + f"tools/{tool}", json.dumps(arguments).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def rest_job_end(url: str, job_id: str) -> dict[str, Any]:
    """What ``POST <url>tools/get_job_result`` answers for the job ``job_id`` once it ended, whatever its end
    (polled until its ``status`` is no longer ``running``, 60 s at most)."""
    def ended() -> Any:
        answer = post_tool(url, "get_job_result", {"job_id": job_id})
        return None if answer["status"] == "running" else answer

    answer: dict[str, Any] = wait_until(ended, f"the job {job_id} to end")
    return answer


def rest_job_value(url: str, job_id: str) -> Any:
    """The ``result`` of the job ``job_id`` polled over REST (``POST /tools/get_job_result``) until it ended
    ``done`` (another end fails the test)."""
    answer = rest_job_end(url, job_id)
    assert answer["status"] == "done", answer
    return answer["result"]


def returning(make: Callable[[], object]) -> Callable[[], object]:
    """A tool function without parameters answering a fresh ``make()`` at each call (a test's table of
    shapes registers one per row: ``server.tool(name=name, description=...)(returning(make))``)."""
    def shaped() -> object:
        return make()

    return shaped


async def done_job(client: Any, job_id: str, seconds: float = 60) -> Any:
    """What ``get_job_result`` answers the official ``client`` once the job ``job_id`` ended ``done``
    (another end fails the test), polled for at most ``seconds``."""
    import anyio

    with anyio.fail_after(seconds):
        while (answer := await client.call_tool("get_job_result", {"job_id": job_id})).structured_content[
            "status"
        ] == "running":
            await anyio.sleep(0.05)
    assert answer.structured_content["status"] == "done", answer.structured_content
    return answer


def crate_action(folder: Path) -> dict[str, Any]:
    """The one ``CreateAction`` of the RO-Crate written to ``folder`` (the call it describes)."""
    import json

    metadata = json.loads((folder / "ro-crate-metadata.json").read_text())
    [action] = [item for item in metadata["@graph"] if item.get("@type") == "CreateAction"]
    return dict(action)


def count_calls(fn: Callable[[], Any], events: tuple[str, ...] = ("call",)) -> int:
    """How many function calls ``fn()`` makes, counted with ``sys.setprofile``: Python calls
    (``"call"``), and C calls too with ``events=("call", "c_call")``. Work counted, never timed."""
    import gc
    import sys

    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in events:
            count += 1

    # A garbage collection that falls inside ``fn()`` runs other objects' finalizers (``__del__``,
    # weakref callbacks of earlier tests' sockets and loops), and those calls would be counted as
    # ``fn``'s: the collector is kept off while counting, so none can fall inside. No collection
    # first: with the collector off it changes nothing counted, and a full one over a whole suite's
    # heap took about a second (a test counting 18 times spent 14 s in CI collecting).
    was_enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if was_enabled:
            gc.enable()
    return count


@contextlib.contextmanager
def stdio_in_process(server: MCPServer) -> Iterator[tuple[int, queue.Queue[dict[str, Any]]]]:
    """``server`` over stdio on two pipes, in this process: the descriptor to write lines to, and the
    queue of the messages it wrote."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    from nanohubmcp.transports.stdio import StdioTransport as InProcessStdio

    transport = InProcessStdio(server, in_fd=in_r, out_fd=out_w)
    thread = threading.Thread(target=lambda: asyncio.run(transport.serve()), daemon=True)
    written: queue.Queue[dict[str, Any]] = queue.Queue()
    reader = threading.Thread(target=lambda: [written.put(json.loads(line)) for line in os.fdopen(out_r, "rb")],
                              daemon=True)
    thread.start()
    reader.start()
    try:
        yield in_w, written
    finally:
        os.close(in_w)  # end of input: the server stops
        thread.join(30)
        os.close(out_w)
        reader.join(30)
        os.close(in_r)


def python310() -> str | None:
    """A working Python 3.10 interpreter on this machine (``python3.10`` on PATH, else a pyenv version), or None:
    for tests that run a module of ours under the oldest Python we support (a pyenv shim may name one it cannot
    run, so each candidate is asked its version)."""
    pyenv = os.path.expanduser("~/.pyenv/versions/3.10*/bin/python3.10")
    for candidate in filter(None, [shutil.which("python3.10"), *sorted(glob.glob(pyenv))]):
        try:
            done = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                                  capture_output=True, text=True, timeout=30, check=False)
        except OSError:
            continue
        if done.stdout.strip() == "(3, 10)":
            return candidate
    return None
