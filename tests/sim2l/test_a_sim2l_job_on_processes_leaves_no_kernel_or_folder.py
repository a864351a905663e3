"""A Sim2L job tool on the ``processes`` executor (each job in a process of its own, forked from the server).

Stopped with SIGTERM while a job's notebook ran, the server closed its job executor at the stop's first moment,
killing the job's process, not the run's kernel (a session of its own) nor what its cell started: the server
exited in 0.2 s, and the cell's ``sleep 600`` ran on, reparented, with no time limit (review r27 #5). Now the
server, once a job's process ended, sweeps the run folder that process left (stopping the kernel and its
children, found by the group noted there), and a stopping process waits for that within its exit grace.

And every job left its process's folder (``<results>/.running/nanohubmcp-sim2l-<pid>-*`` with its
``owner.lock``) for the server's life and after: a job's process runs no exit handler (review r27 #4). Now it
is removed once the job's process ended.

A real ``nanohubmcp run`` of an app serving the cooling Sim2L on ``job_executor="processes"``, real kernels,
the official client, a real SIGTERM; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import anyio
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from sim2l.cooling_variant import cooling_variant
from support import app_server, mcp_client, wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="a process's state read in /proc")

APP = """from nanohubmcp import MCPServer

server = MCPServer("sim2l-processes", job_executor="processes", state_dir={state!r})
server.add_sim2l({notebook!r}, name="cool_job", background=True)
"""


def _folders(state: Path) -> list[str]:
    return sorted(path.name for path in state.glob("**/.running/nanohubmcp-sim2l-*"))


@pytest.mark.timeout(300)
def test_jobs_leave_no_run_folder_and_a_stop_leaves_no_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pids = tmp_path / "pids"
    code = (  # for 17 points: a process of the cell's own, both pids written, then the cell waits for it
        "import os, subprocess\n"
        "if points == 17:\n"
        "    child = subprocess.Popen(['sleep', '600'])\n"
        f"    open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "    child.wait()\n"
    )
    state = tmp_path / "state"
    app = tmp_path / "app" / "app.py"
    app.parent.mkdir()
    # (simtool imported after the code: the fourth job's run reaches its child without it)
    app.write_text(APP.format(state=str(state), notebook=str(cooling_variant(tmp_path, code, simtool_late=True))))
    monkeypatch.setenv("MCP_TOKEN", "")
    left: list[int] = []
    try:
        with app_server(app, log=tmp_path / "server.log") as served:

            async def three_jobs_then_a_stop_during_one() -> list[int]:
                async with mcp_client(served.url + "mcp") as client:
                    for points in (5, 6, 7):
                        started = await client.call_tool("cool_job", {"points": points, "rate": 0.02})
                        handle = started.structured_content
                        with anyio.fail_after(120):
                            while (answer := (await client.call_tool(
                                    "get_job_result", {"job_id": handle["job_id"]})).structured_content)[
                                    "status"] == "running":
                                await anyio.sleep(0.1)
                        assert answer["status"] == "done", answer
                # Each job's process is gone (it answered first): its folder with it, while the server serves on.
                await anyio.to_thread.run_sync(lambda: wait_until(
                    lambda: not _folders(state), f"no run folder left by the jobs' processes (left: {_folders(state)})",
                    timeout=20))

                async def call() -> None:
                    with contextlib.suppress(Exception):  # (its server stops under it)
                        async with mcp_client(served.url + "mcp") as client:
                            await client.call_tool("cool_job", {"points": 17, "rate": 0.02})

                async with anyio.create_task_group() as calls:
                    calls.start_soon(call)
                    found = await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: pids.exists() and pids.read_text(), "the cell's process", timeout=120))
                    served.process.send_signal(signal.SIGTERM)
                    await anyio.to_thread.run_sync(lambda: served.process.wait(60))
                    calls.cancel_scope.cancel()
                return [int(pid) for pid in found.split()]

            left = anyio.run(three_jobs_then_a_stop_during_one)
            assert served.process.returncode == 0, served.output
            # (the stop killed them: a moment for the kernel to end them, and for init to reap them)
            wait_until(lambda: not any(map(running, left)), "the kernel and its cell's process to be gone after "
                       "the server's exit", timeout=10)
            assert not _folders(state), served.output
    finally:
        for pid in left:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
