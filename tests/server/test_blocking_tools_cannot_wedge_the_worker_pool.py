"""Issue 13 § 5: blocking tools cannot wedge the server.

Seven calls of a blocking tool used to fill the worker pool for good: quick tools got no answer,
``tool_timeout`` only failed them faster, and after SIGTERM the process stopped listening but
stayed alive until a second signal. Now a quick lane keeps quick tools answering, a call past
``tool_timeout`` gives its worker back (the function runs on, abandoned and counted), the count
shows in ``%mcp status``, and SIGTERM ends the process after a grace period.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from support import call_tool_http, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.jupyter.display import StatusView
from nanohubmcp.testing import in_memory


def build(release: threading.Event, entered: threading.Semaphore, **options: Any) -> MCPServer:
    server = MCPServer("wedge", **options)

    @server.tool()
    def block() -> str:
        """Block until released, ignoring cancellation (like a socket read without timeout)."""
        entered.release()
        release.wait(30)
        return "unblocked"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Quick."""
        return a + b

    return server


def test_quick_tools_answer_while_blocking_calls_fill_every_worker() -> None:
    release, entered = threading.Event(), threading.Semaphore(0)
    server = build(release, entered, workers=3)
    with in_memory(server, session=False, version="2025-03-26") as client:
        callers = [threading.Thread(target=client.call_tool, args=("block",)) for _ in range(7)]
        for caller in callers:
            caller.start()
        try:
            for _ in range(3):
                assert entered.acquire(timeout=10)  # every main worker is blocked
            for a in range(5):
                assert client.call_tool("add", {"a": a, "b": 1}, timeout=5)["content"][0]["text"] == str(a + 1)
        finally:
            release.set()
        for caller in callers:
            caller.join(20)


def test_calls_past_tool_timeout_give_their_worker_back_and_are_counted_as_stuck() -> None:
    release, entered = threading.Event(), threading.Semaphore(0)
    server = build(release, entered, workers=2, tool_timeout=0.3)
    with in_memory(server, session=False, version="2025-03-26") as client:
        try:
            for _ in range(5):  # more than the workers: each timed-out call gave its worker back
                result = client.call_tool("block")
                assert result["isError"] is True
                assert "abandoned" in result["content"][0]["text"]
            assert server.core.stuck_calls == 5
            assert server.core.executor.busy == 0
            # Neither lane is wedged: the blocking tool itself starts again, and quick tools answer.
            assert client.call_tool("add", {"a": 2, "b": 2})["content"][0]["text"] == "4"
            shown = repr(
                StatusView(
                    {
                        "name": "wedge",
                        "version": "1",
                        "running": False,
                        "tools": [],
                        "resources": [],
                        "prompts": [],
                        "stuck_calls": server.core.stuck_calls,
                    }
                )
            )
            assert "Stuck calls: 5" in shown
        finally:
            release.set()
        wait_until(lambda: server.core.stuck_calls == 0, "no call is stuck any more", 10)


SCRIPT = """
import threading
from nanohubmcp import MCPServer

server = MCPServer("stuck")

@server.tool()
def forever() -> str:
    '''Never returns, whatever it is told.'''
    print("forever: running", flush=True)
    threading.Event().wait()
    return "never"

server.run(host="127.0.0.1", port=0, exit_grace=3)  # past the 2 s drain: the exit watchdog bounds at it too
"""


def test_sigterm_ends_the_process_even_while_a_tool_never_returns(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(app)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline() if proc.stdout else ""
        base = f"http://127.0.0.1:{int(banner.rsplit(':', 1)[1])}/"
        running = threading.Event()

        def watch() -> None:
            for line in proc.stdout or ():
                if "forever: running" in line:
                    running.set()

        threading.Thread(target=watch, daemon=True).start()
        threading.Thread(target=lambda: _quietly(call_tool_http, base, "forever", timeout=40), daemon=True).start()
        assert running.wait(30), "the tool never started"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0  # once drained (2 s), by the bound (3 s here); no second signal needed
        said = proc.stderr.read() if proc.stderr else ""
        assert "still running; exiting without them (within 3 s of the stop)" in said, said
        assert "Traceback" not in said
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _quietly(fn: Any, *args: Any, **kwargs: Any) -> None:
    with contextlib.suppress(OSError):  # the connection closes with the server
        fn(*args, **kwargs)


def test_calls_of_a_function_already_queued_do_not_take_the_quick_lane() -> None:
    # Regression: before the first calls of a blocking function had started, the next ones looked
    # "never seen" and filled the quick lane, so a quick function found no room there either.
    from nanohubmcp.server.calls.workers import WorkerPool

    pool = WorkerPool(1, quick_workers=2)
    release = threading.Event()
    try:
        blocked = [pool.submit_call(lambda: release.wait(20), key="block") for _ in range(5)]
        quick = pool.submit_call(lambda: "quick", key="add")
        assert quick.result(10) == "quick"
        assert [f.lane.name for f in blocked] == ["main"] * 5
    finally:
        release.set()
        pool.shutdown(wait=True)
