"""A Rappture job tool on the ``processes`` executor (each job in a process of its own, forked from the server).

Stopped with SIGTERM while a job's program ran, the server closed its job executor at the stop's first moment,
killing the job's process but not its program, which leads a session of its own (and, deaf to SIGTERM here,
would not have ended at a SIGTERM either): the server exited in 0.3 s and the program ran on, reparented, with no
time limit (review r27 #5). Now the server, once a job's process ended, sweeps the run folder that process left
(stopping the programs noted there), and a stopping process waits for that within its exit grace: the program
is gone once the server is.

And every job left its process's run folder (``nanohubmcp-rappture-<pid>-*`` with its ``owner.lock``) in the
temporary directory, for the server's life and after: a job's process runs no exit handler (review r27 #4).
Now it is removed once the job's process ended.

A real ``nanohubmcp run`` of an app serving the tool on ``job_executor="processes"``, the hub's ``rappture``
stand-in, the official client, a real SIGTERM; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from support import app_server, mcp_client, wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="a process's state read in /proc")

STANDIN = Path(__file__).parent / "standin" / "rappture"

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>{name}</id><command>python3 @tool/{name}.py @driver</command></tool>
  <input><string id="title"><default>none</default></string></input>
</run>
"""

# Deaf to SIGTERM; ends by itself when the test says stop (so nothing outlives the test either way).
DEAF = """import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open("pid", "w") as f:
    f.write(str(os.getpid()))
while not os.path.exists(os.path.join(os.path.dirname(sys.argv[0]), "stop")):
    time.sleep(0.05)
"""

# Answers at once: its driver is its run file.
QUICK = """import shutil, sys
shutil.copy(sys.argv[1], "run_quick.xml")
print("=RAPPTURE-RUN=>run_quick.xml")
"""

APP = """from nanohubmcp import MCPServer

server = MCPServer("rappture-processes", job_executor="processes", state_dir={state!r})
server.add_rappture_tool({deaf!r}, background=True)
server.add_rappture_tool({quick!r}, background=True)
"""


def _app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """The app file, the temporary directory its runs are made in, and the deaf tool's folder."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rappture").symlink_to(STANDIN)
    (bin_dir / "python3").symlink_to(sys.executable)
    tools = {}
    for name, program in (("deaf", DEAF), ("quick", QUICK)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "tool.xml").write_text(TOOL.format(name=name))
        (folder / f"{name}.py").write_text(program)
        tools[name] = str(folder / "tool.xml")
    app = tmp_path / "app" / "app.py"
    app.parent.mkdir()
    app.write_text(APP.format(state=str(tmp_path / "state"), **tools))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("MCP_TOKEN", "")
    return app, tmp, tmp_path / "deaf"


def _folders(tmp: Path) -> list[str]:
    return sorted(path.name for path in tmp.glob("nanohubmcp-rappture-*"))


@pytest.mark.timeout(150)
def test_jobs_leave_no_run_folder_and_a_stop_leaves_no_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, tmp, deaf = _app(tmp_path, monkeypatch)
    program = 0
    try:
        with app_server(app, log=tmp_path / "server.log") as served:

            async def three_jobs_then_a_stop_during_one() -> int:
                async with mcp_client(served.url + "mcp") as client:
                    for title in ("a", "b", "c"):
                        handle = (await client.call_tool("quick", {"title": title})).structured_content
                        with anyio.fail_after(60):
                            while (answer := (await client.call_tool(
                                    "get_job_result", {"job_id": handle["job_id"]})).structured_content)[
                                    "status"] == "running":
                                await anyio.sleep(0.05)
                        assert answer["status"] == "done", answer
                # Each job's process is gone (it answered first): its folder with it, while the server serves on.
                await anyio.to_thread.run_sync(lambda: wait_until(
                    lambda: not _folders(tmp), f"no run folder left by the jobs' processes (left: {_folders(tmp)})",
                    timeout=20))

                async def call() -> None:
                    with contextlib.suppress(Exception):  # (its server stops under it)
                        async with mcp_client(served.url + "mcp") as client:
                            await client.call_tool("deaf", {"title": "hang"})

                async with anyio.create_task_group() as calls:
                    calls.start_soon(call)
                    found = await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: next(tmp.glob("nanohubmcp-rappture-*/rappture-deaf-*/pid"), None), "the run"))
                    pid = int(await anyio.to_thread.run_sync(lambda: wait_until(found.read_text, "its pid")))
                    served.process.send_signal(signal.SIGTERM)
                    await anyio.to_thread.run_sync(lambda: served.process.wait(60))
                    calls.cancel_scope.cancel()
                return pid

            program = anyio.run(three_jobs_then_a_stop_during_one)
            assert served.process.returncode == 0, served.output
            # (the stop killed it: a moment for the kernel to end it, and for init to reap it)
            wait_until(lambda: not running(program), "the job's program to be gone after its server's exit",
                       timeout=10)
            assert not _folders(tmp), served.output
    finally:
        (deaf / "stop").write_text("")
        if program and running(program):
            os.kill(program, signal.SIGKILL)
