"""A cancelled Sim2L call stops its papermill kernel: the official client cancels a call whose
notebook sleeps in a cell (``notifications/cancelled``), and the kernel process (a real one,
started by papermill) is gone soon after, instead of computing the rest of its cell.

Found by a fresh-user trial (F4): the kernel ran on until its cell ended (here 600 s) and each
cancelled call left one more.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import anyio
import pytest
from sim2l.cooling_variant import COOLING, cooling_variant
from support import mcp_client, running, serve

from nanohubmcp import MCPServer


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(180)
async def test_a_cancelled_call_kills_its_kernel(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pidfile = tmp_path / "kernel.pid"
    path = cooling_variant(
        tmp_path,
        "import os, time\n"
        "if points == 17:\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n",
        "coolslow.ipynb",
        simtool_late=True,  # the sleeping cell reached without simtool's import (seconds on a busy machine)
    )
    server = MCPServer("slow-sim2l", job_store="memory")
    server.add_sim2l(str(path), name="cooling")

    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await session.call_tool("cooling", {"points": 17})

                group.start_soon(call)
                deadline = time.monotonic() + 120
                while not (pidfile.exists() and pidfile.read_text()):  # the kernel is in the sleeping cell
                    assert time.monotonic() < deadline, "the notebook never reached its sleeping cell"
                    await anyio.sleep(0.1)
                pid = int(pidfile.read_text())
                assert running(pid)
                group.cancel_scope.cancel()  # the SDK sends notifications/cancelled for the request

            deadline = time.monotonic() + 30
            try:
                while running(pid):
                    assert time.monotonic() < deadline, f"the kernel {pid} still runs 30 s after the cancel"
                    await anyio.sleep(0.1)
            finally:
                if running(pid):  # the test failed: leave no kernel sleeping behind it
                    os.kill(pid, signal.SIGKILL)
            # The server still answers (the worker thread of the cancelled call came back).
            assert (await session.list_tools()).tools[0].name == "cooling"


def test_the_cell_timeout_is_an_option_of_every_way_to_serve_a_sim2l(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    from nanohubmcp.cli.parser import build_parser
    from nanohubmcp.hub_app import build_server
    from nanohubmcp.jupyter.source_lines import parse_source_line
    from nanohubmcp.nanohub.launcher import build_parser as start_mcp_parser

    assert build_parser().parse_args(["sim2l", str(COOLING), "--cell-timeout", "90"]).cell_timeout == 90
    assert build_parser().parse_args(["hub-tools", "cooling", "--cell-timeout", "5"]).cell_timeout == 5
    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(["sim2l", str(COOLING), "--cell-timeout", "0"])
    assert refused.value.code == 2
    assert start_mcp_parser().parse_args(["--sim2l", str(COOLING), "--cell-timeout", "7"]).cell_timeout == 7
    assert parse_source_line("sim2l", f"{COOLING} --cell-timeout 12").options == {"cell_timeout": 12.0}
    server = build_server([{"kind": "sim2l", "path": str(COOLING), "cell_timeout": 30}])
    assert server.core.registry.tools.get("cooling").extra["sim2l"].cell_timeout == 30
    from nanohubmcp.errors import RegistrationError

    with pytest.raises(RegistrationError, match="cell_timeout"):
        MCPServer("x", job_store="memory").add_sim2l(str(COOLING), cell_timeout=-1)
