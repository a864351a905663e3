"""A Sim2L call writes nothing of its own on the server's stderr: papermill's tqdm bar (carriage
returns, no newline) and the kernel's start-up warning ("[IPKernelApp] WARNING | Kernel is running
over TCP without encryption ...") are not printed, while the bar's count still reaches the client
as MCP progress. Served by ``nanohubmcp sim2l`` over stdio, called by the official client.

Found by a fresh-user trial (F7): every call put the bar and the warning into the server's log,
the next log line (an ``--access-log`` line) glued to the bar, interleaved across ``--workers``.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

import anyio
import pytest
from sim2l.cooling_variant import COOLING, cooling_variant
from support import wait_until

from nanohubmcp.sources.sim2l.kernel_output import relay


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.anyio
async def test_a_sim2l_call_prints_no_progress_bar_and_no_kernel_warning(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path)}  # no stored run: the notebook runs
    command = ["-m", "nanohubmcp", "sim2l", str(COOLING), "--transport", "stdio"]
    params = StdioServerParameters(command=sys.executable, args=command, cwd=str(tmp_path), env=env)
    # a real file, the server writes to it; newline="": its carriage returns read as written
    with tempfile.TemporaryFile("w+", newline="") as errors, anyio.fail_after(200):
        async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("cooling", {}, progress_callback=on_progress)
        errors.seek(0)
        stderr = errors.read()
    assert not result.is_error, result.content
    assert result.structured_content["cached"] is False
    assert progress, "papermill's cell count reaches the client as progress"
    assert "\r" not in stderr, stderr
    assert "Executing" not in stderr, stderr
    assert "IPKernelApp" not in stderr, stderr


def test_what_the_kernel_prints_is_logged_its_own_warnings_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.sim2l")
    output = relay("doubler")
    os.write(output, b"[IPKernelApp] WARNING | Kernel is running over TCP without encryption.\n"
                     b"[IPKernelApp] ERROR | Exception in message handler:\n"
                     b"Traceback (most recent call last):\n\n"
                     b"step 1\rstep 2\rstep 3\n")
    os.close(output)
    wait_until(lambda: len(caplog.records) >= 4, "the four lines logged", timeout=10)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "the Sim2L tool 'doubler' (its kernel): [IPKernelApp] WARNING | Kernel is running over TCP "
                  "without encryption."),
        ("WARNING", "the Sim2L tool 'doubler' (its kernel): [IPKernelApp] ERROR | Exception in message handler:"),
        ("WARNING", "the Sim2L tool 'doubler' (its kernel): Traceback (most recent call last):"),
        ("WARNING", "the Sim2L tool 'doubler' (its kernel): step 3"),
    ]


CLOSED_UNDER_IT = b"""[IPKernelApp] ERROR | Exception in message handler:
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/ipykernel/kernelbase.py", line 508, in dispatch_shell
    await result
  File "zmq/backend/cython/_zmq.py", line 1339, in zmq.backend.cython._zmq._check_closed
zmq.error.ZMQError: Socket operation on non-socket
"""
"""What ipykernel printed at every cell over ``cell_timeout`` (trial64 F9), the kernel shut down under its cell."""


def test_the_kernels_reply_on_a_socket_its_shutdown_closed_is_logged_at_debug(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.sim2l")
    output = relay("cool3")
    os.write(output, CLOSED_UNDER_IT + b"a program's own line\n")
    wait_until(lambda: len(caplog.records) >= 7, "the record and the line after it logged", timeout=10)
    levels = [(r.levelname, r.getMessage().split(": ", 1)[1]) for r in caplog.records]
    assert levels[:6] == [("DEBUG", line) for line in CLOSED_UNDER_IT.decode().splitlines()], levels
    assert levels[6] == ("WARNING", "a program's own line"), levels
    # An ERROR record without a line after it is logged once the kernel is quiet, not at its exit only.
    os.write(output, b"[IPKernelApp] ERROR | Exception in message handler:\nTraceback (most recent call last):\n"
                     b"ValueError: something else\n")
    wait_until(lambda: len(caplog.records) >= 10, "the other record logged while the pipe is open", timeout=10)
    assert {r.levelname for r in caplog.records[7:]} == {"WARNING"}, caplog.records[7:]
    os.close(output)


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.anyio
async def test_a_cell_over_cell_timeout_prints_nothing_of_its_kernel(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    code = "import time\nif points == 17:\n    time.sleep(600)\nif points == 3:\n    raise ValueError('quick')\n"
    notebook = cooling_variant(tmp_path, code, simtool_late=True)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    command = ["-m", "nanohubmcp", "sim2l", str(notebook), "--name", "cool", "--cell-timeout", "5",
               "--transport", "stdio"]
    params = StdioServerParameters(command=sys.executable, args=command, cwd=str(tmp_path), env=env)
    with tempfile.TemporaryFile("w+") as errors, anyio.fail_after(200):
        async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("cool", {"points": 17})
            assert result.is_error, result
            assert "did not finish within 5 s in code cell 7 (`import time`)" in result.content[0].text, result
            # A run after it (failing at once) is answered once that kernel's shutdown, where the traceback came
            # from (before the first answer), and its output's logging are long over.
            again = await session.call_tool("cool", {"points": 3})
            assert "failed in code cell 7 (`import time`): ValueError: quick" in again.content[0].text, again.content
        errors.seek(0)
        stderr = errors.read()
    assert "IPKernelApp" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
