"""A Sim2L run's kernel works in the run's own directory, and the serving process's working directory
stays what it was while the run goes on.

Before: the notebook ran through papermill's ``cwd=``, which changes the working directory of the
whole process for the length of the run. Every other thread of the server (another tool's call, the
user's own kernel when served from a notebook) saw the run's scratch directory as its working
directory; and of two runs at once in one server, the second one to start restored, when it ended,
the directory of the first — which the first had removed meanwhile (its run failed, or was stored
under its id): ``the Sim2L tool 'cool_to' failed: FileNotFoundError: ... /state/sim2l/.running/...``.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from sim2l.cooling_variant import cooling_variant
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_the_servers_working_directory_is_unchanged_while_a_run_goes_on(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    started, go = tmp_path / "started", tmp_path / "go"
    notebook = cooling_variant(
        tmp_path,
        "import os, time\n"
        f"open({str(started)!r}, 'w').write(os.getcwd())\n"
        f"while not os.path.exists({str(go)!r}):\n"
        "    time.sleep(0.05)\n",
        simtool_late=True,  # the waiting cell reached without simtool's import (seconds on a busy machine)
    )
    server = MCPServer("cwd", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(notebook), name="cool")

    @server.tool()
    def where() -> str:
        """The serving process's working directory."""
        return os.getcwd()

    before = os.getcwd()
    with serve(server) as url, anyio.fail_after(200):
        async with mcp_client(url + "mcp") as client:
            answer: list[object] = []

            async def run() -> None:
                answer.append(await client.call_tool("cool", {"points": 17}))

            async with anyio.create_task_group() as group:
                group.start_soon(run)
                await anyio.to_thread.run_sync(wait_until, started.exists, "the run's cell to start", 120)
                during = await client.call_tool("where", {})
                go.touch()
    assert during.content[0].text == before  # was the run's scratch directory
    assert os.getcwd() == before
    # the kernel itself ran in the run's directory, under the server's Sim2L store, as before
    kernel_cwd = Path(started.read_text())
    assert kernel_cwd.is_relative_to(tmp_path / "state")
    assert ".running" in kernel_cwd.parts
    assert not answer[0].is_error, answer[0].content  # type: ignore[attr-defined]
