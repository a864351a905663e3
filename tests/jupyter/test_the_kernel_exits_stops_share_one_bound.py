"""The kernel's exit stops every notebook server (the ``%%mcp_tool`` session's and each ``server.run()``
server's) within one bound, :data:`~nanohubmcp.jupyter.kernel_exit.EXIT_STOP_SECONDS`, in all: they stop together,
against one deadline, so each answers its calls before a Jupyter kernel manager's SIGTERM (2.5 s after its shutdown
request), whatever another's stop waits for. The servers' side of it runs in a real kernel in
``test_a_kernel_shutdown_records_the_call_it_cut_short.py``; here, stops that take all the time they are given, and
real servers: a "kernel" mode one on a loop a cell holds, a "thread" mode one with a call running (review r31 F3:
the stops ran in turn, and the second began at +2.75 s with 1 ms).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from provenance_rows import provenance_rows
from support import wait_until

from nanohubmcp import MCPServer
from nanohubmcp.jupyter import kernel_exit
from nanohubmcp.jupyter.kernel_exit import EXIT_STOP_SECONDS, JOIN_GRACE_SECONDS, SMALLEST_SHARE, stop_within


def test_each_stop_takes_its_share_and_all_end_within_the_bound() -> None:
    given: list[float] = []

    def slow_stop(within: float) -> None:  # a server whose running calls use all of their moment
        given.append(within)
        time.sleep(within)

    began = time.monotonic()
    stop_within([slow_stop, slow_stop, slow_stop], EXIT_STOP_SECONDS)
    took = time.monotonic() - began
    assert took < EXIT_STOP_SECONDS + 0.2, (took, given)
    assert len(given) == 3, given
    for within in given:
        assert within >= EXIT_STOP_SECONDS / 3 - 0.05, given  # none left with nothing while time was left


def test_every_stop_gets_the_whole_time_at_once() -> None:
    given: list[float] = []
    stop_within([given.append, given.append], EXIT_STOP_SECONDS)
    assert given == [pytest.approx(EXIT_STOP_SECONDS, abs=0.05)] * 2, given


def test_a_stop_that_overruns_holds_up_neither_the_others_nor_the_caller() -> None:
    given: list[float] = []
    held = threading.Event()

    def overrunning(within: float) -> None:  # a loop that does not answer
        held.wait(30)

    began = time.monotonic()
    stop_within([overrunning, given.append], 0.1)
    took = time.monotonic() - began
    held.set()
    assert given == [pytest.approx(0.1, abs=0.05)], given
    assert took < 0.1 + JOIN_GRACE_SECONDS + 0.3, took
    assert SMALLEST_SHARE > 0


def test_a_stop_that_raises_does_not_keep_the_next_from_stopping() -> None:
    given: list[float] = []

    def broken(within: float) -> None:
        raise RuntimeError("port gone")

    with pytest.raises(RuntimeError, match="port gone"):
        stop_within([broken, given.append], EXIT_STOP_SECONDS)
    assert len(given) == 1, given


def _server(name: str, state: Path) -> MCPServer:
    server = MCPServer(name, state_dir=str(state))

    @server.tool()
    def nap(seconds: float) -> str:
        """Sleeps."""
        time.sleep(seconds)
        return "rested"

    return server


def _post(url: str, answers: list[Any]) -> None:
    request = urllib.request.Request(url, data=json.dumps({"seconds": 30}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.append((response.status, response.read().decode(), time.monotonic()))
    except urllib.error.HTTPError as exc:
        answers.append((exc.code, exc.read().decode(), time.monotonic()))
    except OSError as exc:
        answers.append((None, repr(exc), time.monotonic()))


@pytest.mark.timeout(60)
def test_a_busy_kernel_loop_leaves_the_thread_servers_its_time(tmp_path: Path) -> None:
    """A "kernel" mode server (``loop="current"``) on a loop another thread runs, held by ``time.sleep`` as a cell
    would hold it, registered first; a "thread" mode server with a call running. ``stop_all`` (the shutdown
    request's) answers that call 503 and writes its record before the kernel manager's SIGTERM (2.5 s), and returns
    within its bound. Before: the second stop began at +2.75 s with 1 ms."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    kernel_mode = _server("kernel-mode", tmp_path / "k")

    async def start() -> None:
        kernel_mode.start(port=0, loop="current", quiet=True)
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        started = loop.create_task(start())
        loop.run_until_complete(started)
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    assert ready.wait(10)
    state = tmp_path / "t"
    thread_mode = _server("thread-mode", state).start(port=0, quiet=True)
    try:
        kernel_exit.stop_at_exit(kernel_mode, lambda within: kernel_mode.stop(within=within))
        kernel_exit.stop_at_exit(thread_mode, lambda within: thread_mode.stop(within=within))
        answers: list[Any] = []
        threading.Thread(target=_post, args=(f"{thread_mode.url}tools/nap", answers), daemon=True).start()
        wait_until(lambda: thread_mode.core.in_flight, "the call running", 10)
        cell = threading.Event()
        loop.call_soon_threadsafe(lambda: (cell.set(), time.sleep(6)))  # a cell computing on the kernel's loop
        assert cell.wait(5)
        began = time.monotonic()
        kernel_exit.stop_all()
        took = time.monotonic() - began
        wait_until(lambda: answers, "the call answered", 10)
        [(status, body, at)] = answers
        assert status == 503, answers
        assert "The server is stopping" in body, answers
        assert at - began < 2.5, f"answered {at - began:.2f} s after the shutdown request: past the SIGTERM"
        assert took < EXIT_STOP_SECONDS + JOIN_GRACE_SECONDS + 0.3, took
        lines = [line for line in provenance_rows(state) if " nap " in line]
        assert len(lines) == 1, lines
        assert "the server stopped while this call ran" in lines[0], lines
    finally:
        kernel_exit.forget(kernel_mode)
        kernel_exit.forget(thread_mode)
        thread_mode.stop()
        loop.call_soon_threadsafe(loop.stop)
