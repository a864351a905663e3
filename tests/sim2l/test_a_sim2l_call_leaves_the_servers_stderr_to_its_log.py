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
from sim2l.cooling_variant import COOLING
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
