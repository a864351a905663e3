"""A process holding the results folder's lock (stopped with Ctrl-Z or SIGSTOP, paused in a debugger, on a
slow network home) does not stop a server sharing the folder from answering (trial33 W13).

A call keeping a large result waited for the lock on the server's event loop: the whole process stopped
answering, every client and ``/healthz`` included, for as long as the peer held it. Now the wait is never
on the event loop: a text result is shaped on the worker pool, which waits for the lock at most
``lock_wait_seconds``; a result shaped on the loop (a plain list) tries once there and, the lock held,
waits for it on the worker pool too. A result whose lock is not had in time is kept in this process's
memory (one log line says why): its call answers and its link reads back all of it.

A list kept while a peer briefly holds the lock (two ``--workers`` keeping large results at the same
moment) so lands in the shared folder, read by every process: it was kept in memory at once, its link not
found through another worker.

The peer is a real second process: it takes the lock with ``flock`` and stops itself with SIGSTOP (or, for
the brief hold, lets go when the test tells it to).
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import mcp_client, process_fields, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.results.folder import LOCK_NAME
from nanohubmcp.server.results.store import ResultStore

PEER = """\
import fcntl, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""
"""The peer: takes the folder's lock, says so, and stops (holding it until killed)."""

BRIEF_PEER = """\
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
fcntl.flock(fd, fcntl.LOCK_UN)
"""
"""A peer holding the folder's lock briefly: takes it, says so, and lets go when a line comes on its stdin."""

READER = """\
import json, sys
from nanohubmcp.server.results.store import ResultStore
state, uri = sys.argv[1], sys.argv[2]
meta = json.load(open(f"{state}/results/{uri.rpartition('/')[2]}.meta.json"))
read = ResultStore(ttl=3600, directory=lambda: state).read(uri, meta["owner"])
print(read["contents"][0]["text"] if read else "not found")
"""
"""Another process of the same state directory reading a kept result through its own store."""

OWNER = "principal:alice"
TEXT_CHARS = 300_000
PROMPT = 30.0
"""Seconds a trivial call may take while the lock is held (it takes milliseconds; was: until the peer let go)."""


def build(state: Path, made: threading.Event) -> MCPServer:
    server = MCPServer("lockwait", state_dir=str(state), max_inline_bytes=1000)

    @server.tool()
    def text(n: int) -> str:
        """A text of n characters."""
        made.set()
        return "t" * n

    @server.tool()
    def numbers(n: int) -> list[int]:
        """The numbers 0 to n - 1."""
        made.set()
        return list(range(n))

    @server.tool()
    def ping() -> str:
        """A trivial call."""
        return "pong"

    return server


def link_of(result: object) -> str:
    return next(str(block.uri) for block in result.content if block.type == "resource_link")  # type: ignore[attr-defined]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MCPServer, str, threading.Event]]:
    made = threading.Event()
    server = build(tmp_path, made)
    with serve(server) as url:
        yield server, url, made


@pytest.fixture
def peer(tmp_path: Path) -> Iterator[Callable[[], subprocess.Popen[str]]]:
    """A second process holding the results folder's lock, stopped; killed (letting go of the lock) at the end."""
    lock_file = tmp_path / "results" / LOCK_NAME
    process: subprocess.Popen[str] | None = None

    def start() -> subprocess.Popen[str]:
        nonlocal process
        process = subprocess.Popen([sys.executable, "-c", PEER, str(lock_file)], stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        assert process.stdout.readline() == "held\n"
        wait_until(lambda: stopped(process.pid), "the peer stops itself", 30)
        return process

    yield start
    if process is not None:
        process.kill()  # (a stopped process is killed all the same: the kernel lets go of its lock)
        process.wait(30)


def stopped(pid: int) -> bool:
    fields = process_fields(pid)
    return fields is not None and fields[0] == "T"


async def warm(client: object) -> None:
    """A first kept result: the results folder and its lock file exist (the peer opens it)."""
    assert link_of(await client.call_tool("text", {"n": 2000}))  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_a_text_call_waits_off_the_loop_and_is_kept_in_the_folder_once_the_lock_is_had(
        served: tuple[MCPServer, str, threading.Event], peer: Callable[[], subprocess.Popen[str]],
        tmp_path: Path) -> None:
    server, url, made = served
    server.core.result_store.lock_wait_seconds = 600.0  # waits for the peer to go, however long that takes
    async with mcp_client(url + "mcp") as alice, mcp_client(url + "mcp") as bob:
        await warm(alice)
        holder = peer()
        made.clear()
        big = asyncio.ensure_future(alice.call_tool("text", {"n": TEXT_CHARS}))
        try:
            assert await asyncio.to_thread(made.wait, 60)  # its text is made: it is being kept
            pong = await asyncio.wait_for(bob.call_tool("ping", {}), PROMPT)  # was: no answer while the lock was held
            assert pong.content[0].text == "pong"
            assert not big.done()  # still waiting for the lock, off the loop
        finally:
            holder.kill()  # the peer goes: the kernel lets go of its lock
            holder.wait(30)
        result = await asyncio.wait_for(big, 60)
    uri = link_of(result)
    assert (tmp_path / "results" / uri.rpartition("/")[2]).exists()  # kept in the folder, shared as before
    async with mcp_client(url + "mcp") as other:
        assert (await other.call_tool("ping", {})).content[0].text == "pong"


@pytest.mark.anyio
async def test_a_lock_not_had_in_time_keeps_the_result_in_memory_and_the_call_answers(
        served: tuple[MCPServer, str, threading.Event], peer: Callable[[], subprocess.Popen[str]], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    server, url, made = served
    server.core.result_store.lock_wait_seconds = 1.0
    async with mcp_client(url + "mcp") as alice, mcp_client(url + "mcp") as bob:
        await warm(alice)
        peer()
        made.clear()
        with caplog.at_level(logging.WARNING, "nanohubmcp"):
            big = asyncio.ensure_future(alice.call_tool("text", {"n": TEXT_CHARS}))
            assert await asyncio.to_thread(made.wait, 60)
            pong = await asyncio.wait_for(bob.call_tool("ping", {}), PROMPT)
            assert pong.content[0].text == "pong"
            result = await asyncio.wait_for(big, 60)  # the peer still holds the lock
        uri = link_of(result)
        assert (await alice.read_resource(uri)).contents[0].text == "t" * TEXT_CHARS
        assert not (tmp_path / "results" / uri.rpartition("/")[2]).exists()  # in this process's memory
    said = [r.getMessage() for r in caplog.records if "memory" in r.getMessage()]
    assert len(said) == 1, said
    assert "another process holds the lock of that folder" in said[0], said
    assert "waited for 1 s" in said[0], said


@pytest.mark.anyio
async def test_a_result_shaped_on_the_loop_waits_for_the_lock_off_the_loop_then_is_kept_in_memory(
        served: tuple[MCPServer, str, threading.Event], peer: Callable[[], subprocess.Popen[str]], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    server, url, _ = served
    server.core.result_store.lock_wait_seconds = 1.0  # (waited for on the worker pool, never on the loop)
    async with mcp_client(url + "mcp") as alice, mcp_client(url + "mcp") as bob:
        await warm(alice)
        peer()
        with caplog.at_level(logging.WARNING, "nanohubmcp"):
            big = asyncio.ensure_future(alice.call_tool("numbers", {"n": 100_000}))
            pong = await asyncio.wait_for(bob.call_tool("ping", {}), PROMPT)
            assert pong.content[0].text == "pong"
            result = await asyncio.wait_for(big, PROMPT)  # was: no answer while the lock was held
        uri = link_of(result)
        kept = (await alice.read_resource(uri)).contents[0].text
        assert kept.replace(" ", "") == str(list(range(100_000))).replace(" ", "")
    said = [r.getMessage() for r in caplog.records if "memory" in r.getMessage()]
    assert len(said) == 1, said
    assert "another process holds the lock of that folder" in said[0], said
    assert "waited for 1 s" in said[0], said


def test_an_arrays_text_written_while_the_lock_is_held_is_read_back_into_memory(
        tmp_path: Path, peer: Callable[[], subprocess.Popen[str]], caplog: pytest.LogCaptureFixture) -> None:
    store = ResultStore(ttl=3600, directory=lambda: str(tmp_path))
    store.keep("warm", "text/plain", ".txt", OWNER)  # (the folder and its lock file exist)
    peer()
    store.lock_wait_seconds = 0.2
    with caplog.at_level(logging.WARNING, "nanohubmcp"):
        uri, size = store.keep_parts(lambda: iter(["[1,", "2,", "3]"]), "application/json", ".json", OWNER)
    assert size == 7
    assert store.read(uri, OWNER) == {"contents": [{"uri": uri, "mimeType": "application/json", "text": "[1,2,3]"}]}
    assert not [p for p in (tmp_path / "results").iterdir() if uri.rpartition("/")[2] in p.name]  # no .part left
    assert "waited for 0.2 s" in caplog.text


def test_a_keep_on_the_loop_does_not_wait_behind_a_keep_of_its_own_process(
        tmp_path: Path, peer: Callable[[], subprocess.Popen[str]], caplog: pytest.LogCaptureFixture) -> None:
    store = ResultStore(ttl=3600, directory=lambda: str(tmp_path))
    store.keep("warm", "text/plain", ".txt", OWNER)
    holder = peer()
    store.lock_wait_seconds = 600.0
    waiting: list[str] = []
    worker = threading.Thread(target=lambda: waiting.append(store.keep("w" * 5000, "text/plain", ".txt", OWNER)))
    worker.start()
    try:
        wait_until(store._files._lock._turn.locked,  # type: ignore[union-attr]
                   "the worker's keep waits for the peer's lock", 30)

        async def on_the_loop() -> str:
            return store.keep("l" * 5000, "text/plain", ".txt", OWNER)

        with caplog.at_level(logging.WARNING, "nanohubmcp"):
            mine = asyncio.run(on_the_loop())
        assert worker.is_alive()  # still waiting: the loop did not
        assert store.read(mine, OWNER)["contents"][0]["text"] == "l" * 5000  # type: ignore[index]
        assert "another call of this process holds or waits for the lock" in caplog.text
        assert "not waited for on the event loop" in caplog.text
    finally:
        holder.kill()
        holder.wait(30)
        worker.join(60)
    assert (tmp_path / "results" / waiting[0].rpartition("/")[2]).exists()  # the worker's, once the peer went


@pytest.mark.anyio
async def test_a_list_kept_while_the_lock_is_briefly_held_waits_off_the_loop_and_lands_in_the_folder(
        tmp_path: Path) -> None:
    server = build(tmp_path, threading.Event())
    with serve(server) as url:
        store = server.core.result_store
        store.lock_wait_seconds = 60.0  # (the peer lets go long before)
        async with mcp_client(url + "mcp") as alice, mcp_client(url + "mcp") as bob:
            link_of(await alice.call_tool("numbers", {"n": 2000}))  # (the folder and its lock file exist)
            peer = subprocess.Popen([sys.executable, "-c", BRIEF_PEER, str(tmp_path / "results" / LOCK_NAME)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                assert peer.stdout is not None
                assert peer.stdin is not None
                assert peer.stdout.readline() == "held\n"
                big = asyncio.ensure_future(alice.call_tool("numbers", {"n": 100_000}))
                turn = store._files._lock._turn  # type: ignore[union-attr]  # held by the thread waiting for the lock
                await asyncio.to_thread(wait_until, lambda: turn.locked() or big.done(),
                                        "the keep waits for the peer's lock (or the call answered)", 60)
                assert not big.done()  # was: answered at once, its result kept in this process's memory
                pong = await asyncio.wait_for(bob.call_tool("ping", {}), PROMPT)  # the loop answers meanwhile
                assert pong.content[0].text == "pong"
                assert not big.done()
                peer.stdin.write("go\n")
                peer.stdin.flush()
                assert await asyncio.to_thread(peer.wait, 30) == 0
            finally:
                peer.kill()
                peer.wait(30)
            result = await asyncio.wait_for(big, 60)
        uri = link_of(result)
        assert (tmp_path / "results" / uri.rpartition("/")[2]).exists()  # in the shared folder, not in memory
    other = subprocess.run([sys.executable, "-c", READER, str(tmp_path), uri], capture_output=True, text=True,
                           timeout=60, check=True)
    assert other.stdout.replace(" ", "").strip() == str(list(range(100_000))).replace(" ", "")
