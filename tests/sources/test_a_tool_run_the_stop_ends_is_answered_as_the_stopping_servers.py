"""A Rappture or Sim2L call running when its server is stopped (SIGTERM) gets the stopping server's
answer (-32000, "The server is stopping: this request was not completed; it may be retried ..."), as a
call whose program ignores SIGTERM does when the grace runs out: not the tool's failure. The stop kills
the Rappture program (or the Sim2L kernel), which ends the run with the source's own "was cancelled"
error; the client did not cancel, and an LLM reading "cancelled" would not send the call again. Real
``nanohubmcp rappture`` / ``nanohubmcp sim2l`` processes, the official client, a real SIGTERM.

Found by a fresh-user trial (trial50 F12): the client got ``isError: true`` "Rappture tool 'rp' was
cancelled and stopped" (Sim2L: "... was cancelled: its kernel was stopped"), logged as ``tool 'rp'
failed``; with ``--workers`` the same for the one worker stopped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from sim2l.cooling_variant import cooling_variant
from support import mcp_client, wait_until

ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi" / "tool.xml"
STOPPING = -32000


def _serve(command: list[str], folder: Path) -> tuple[subprocess.Popen[bytes], Path, int]:
    """``nanohubmcp COMMAND --port 0`` in a process of its own (state in ``folder``: nothing stored)."""
    log = folder / "stderr.log"
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(folder / "state")}
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-u", "-m", "nanohubmcp", *command, "--port", "0"],
                                   stdout=subprocess.PIPE, stderr=sink, stdin=subprocess.DEVNULL, cwd=folder, env=env)
    assert process.stdout is not None
    for line in process.stdout:  # the banner names where it listens
        if b"127.0.0.1:" in line:
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, log, int(line.decode().split("127.0.0.1:", 1)[1].split("/", 1)[0].split()[0])
    process.wait(30)
    raise AssertionError(f"the server did not start:\n{log.read_text()}")


async def _stopped_call(process: subprocess.Popen[bytes], port: int, tool: str, arguments: dict[str, object],
                        running: Callable[[anyio.Event], Awaitable[None]]) -> MCPError | None:
    """Call ``tool``; once ``running`` (given an event set at the call's first progress) returns, SIGTERM the
    server. Returns the call's error, or None when it was answered with a result."""
    answer: list[MCPError | None] = []
    progressed = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progressed.set()

    try:
        async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client, anyio.create_task_group() as group:

            async def call() -> None:
                try:
                    result = await client.call_tool(tool, arguments, progress_callback=on_progress)
                except MCPError as exc:
                    answer.append(exc)
                else:
                    answer.append(None)
                    print("answered:", result.content)

            group.start_soon(call)
            await running(progressed)
            process.send_signal(signal.SIGTERM)
    except BaseException as exc:  # the session's own teardown against a server now gone
        if not answer and not any(isinstance(e, MCPError) for e in getattr(exc, "exceptions", [exc])):
            raise
        answer.extend(e for e in getattr(exc, "exceptions", [exc]) if isinstance(e, MCPError))
    return answer[0] if answer else None


def _assert_stopping(error: MCPError | None, process: subprocess.Popen[bytes], log: Path, tool: str) -> None:
    assert process.wait(60) == 0
    stderr = log.read_text(errors="replace")
    assert error is not None, f"answered with a result; the server said:\n{stderr}"
    assert error.error.code == STOPPING, error.error
    assert "The server is stopping: this request was not completed; it may be retried" in error.error.message
    assert f"tool '{tool}' failed" not in stderr, stderr


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.anyio
async def test_a_rappture_call_the_stop_kills_is_answered_as_the_stopping_servers(tmp_path: Path) -> None:
    process, log, port = _serve(["rappture", str(FERMI)], tmp_path)

    async def running(progressed: anyio.Event) -> None:  # the program's progress line: it waits for ever
        await progressed.wait()

    try:
        with anyio.fail_after(120):
            error = await _stopped_call(process, port, "fermi", {"mode": "hang"}, running)
        _assert_stopping(error, process, log, "fermi")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.anyio
async def test_a_sim2l_call_whose_kernel_the_stop_kills_is_answered_as_the_stopping_servers(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pidfile = tmp_path / "kernel.pid"
    path = cooling_variant(tmp_path, "import os, time\n"
                                     f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
                                     "time.sleep(600)\n")
    process, log, port = _serve(["sim2l", str(path)], tmp_path)

    async def running(progressed: anyio.Event) -> None:  # the kernel is in its sleeping cell
        await anyio.to_thread.run_sync(lambda: wait_until(lambda: pidfile.exists() and pidfile.read_text(),
                                                          "the kernel in its sleeping cell", 120))

    try:
        with anyio.fail_after(200):
            error = await _stopped_call(process, port, "cooling", {"points": 17}, running)
        _assert_stopping(error, process, log, "cooling")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
