"""A Sim2L server stopped (SIGTERM) while a call runs and an identical call waits for that run:

- each call leaves a provenance record, ``failed`` with "the server stopped while this call ran"
  (README: every call leaves a record; a call its client cancels did, one the stop cut short did not);
- the waiting call, released when the stop killed the first run's kernel, starts no kernel of its own
  (it had been told to cancel: one was started, then killed, with jupyter_client's "Kernel died before
  replying to kernel_info" on stderr and a longer exit);
- a cell over ``--cell-timeout`` leaves nbclient's "Timeout waiting for execute reply" off the server's
  stderr (the call's error says it; the line was printed bare, outside the log's format).

Real ``nanohubmcp sim2l`` processes, the official client, a real SIGTERM; the kernels are read from /proc.
Found by a fresh-user trial (trial51 F7, F14, F1).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from provenance_rows import provenance_rows
from sim2l.cooling_variant import cooling_variant
from sources.test_a_tool_run_the_stop_ends_is_answered_as_the_stopping_servers import _serve
from support import mcp_client, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def _kernels_of(parent: int) -> set[int]:
    """The ipykernel processes whose parent is ``parent``."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"ipykernel" in command:
            found.add(int(entry))
    return found


@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_stopped_call_is_recorded_and_its_waiting_twin_starts_no_kernel(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pidfile = tmp_path / "kernel.pid"
    path = cooling_variant(tmp_path, "import os, time\n"
                                     f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
                                     "time.sleep(600)\n", simtool_late=True)  # (no simtool import before it)
    process, log, port = _serve(["sim2l", str(path)], tmp_path)
    kernels: set[int] = set()

    def watch() -> None:  # every kernel the server starts, until it has exited
        while process.poll() is None:
            kernels.update(_kernels_of(process.pid))
            time.sleep(0.01)

    answers: list[BaseException | None] = []
    try:
        with anyio.fail_after(240):
            try:
                async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client, anyio.create_task_group() as group:

                    async def call() -> None:
                        try:
                            await client.call_tool("cooling", {"points": 17})
                        except MCPError as exc:
                            answers.append(exc)
                        else:
                            answers.append(None)

                    group.start_soon(call)
                    await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: pidfile.exists() and pidfile.read_text(), "the kernel in its sleeping cell", 120))
                    group.start_soon(call)  # the same inputs: it waits for the first call's run
                    await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: len(list((tmp_path / "state").rglob("*.claim"))) >= 1, "the run's claim", 30))
                    await anyio.sleep(0.5)  # (the second call reaches the claim's wait: nothing to poll for)
                    threading.Thread(target=watch, daemon=True).start()
                    process.send_signal(signal.SIGTERM)
            except BaseException as exc:  # the session's teardown against a server now gone
                if len(answers) < 2:
                    raise
                del exc
        assert process.wait(60) == 0
        stderr = log.read_text(errors="replace")
        assert len(answers) == 2, stderr
        for answer in answers:
            assert isinstance(answer, MCPError), (answer, stderr)
            assert answer.error.code == -32000, (answer, stderr)
        kernels.discard(int(pidfile.read_text()))
        assert not kernels, f"the waiting call started kernel(s) {kernels} at the stop:\n{stderr}"
        assert "Kernel died before replying" not in stderr, stderr
        records = [line for line in provenance_rows(tmp_path / "state") if "cooling" in line]
        assert len(records) == 2, records
        for record in records:
            assert "failed" in record, records
            assert "the server stopped while this call ran" in record, records
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


@pytest.mark.timeout(240)
@pytest.mark.anyio
async def test_a_cell_over_its_time_leaves_nbclients_line_off_stderr(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    path = cooling_variant(tmp_path, "import time\ntime.sleep(600)\n", simtool_late=True)  # (no simtool before it)
    process, log, port = _serve(["sim2l", str(path), "--cell-timeout", "3"], tmp_path)
    try:
        with anyio.fail_after(200):
            async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client:
                result = await client.call_tool("cooling", {"points": 17})
        assert result.is_error, result
        text = json.dumps([c.model_dump() for c in result.content])
        assert "did not finish within 3 s in code cell" in text, text
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
        stderr = log.read_text(errors="replace")
        assert "Timeout waiting for execute reply" not in stderr, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def test_the_interrupt_a_kernel_gets_at_its_shutdown_is_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    from nanohubmcp.sources.sim2l.kernel_output import relay

    caplog.set_level("DEBUG", "nanohubmcp.sim2l")
    write = relay("cooling")
    os.write(write, b"[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.\nRAW noise\n")
    os.close(write)
    wait_until(lambda: len(caplog.records) >= 2, "both lines logged", 10)
    levels = {r.getMessage().rsplit(": ", 1)[1]: r.levelname for r in caplog.records}
    assert levels == {"[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.": "DEBUG", "RAW noise": "WARNING"}
