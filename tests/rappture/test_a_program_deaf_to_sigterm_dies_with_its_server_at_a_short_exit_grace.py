"""``nanohubmcp rappture tool.xml --exit-grace 2`` stopped with SIGTERM while a run's program ignores SIGTERM:
the server exited before the SIGKILL due two seconds after the program's SIGTERM, and removed the run's folder,
so the program ran on for ever, reparented, and no later server's sweep could find it (trial50 F13). Now the
process kills the group of every program still running before it removes their folders: the program is gone
once the server is — alone, and with ``--workers 2``. And at the default grace (10 s) the program was left too:
the stop's SIGTERM ended ``rappture -execute``, and the SIGKILL was sent only if that leader still ran; now
what is left of the group gets it. Nor when a second SIGTERM quits the server at once, running no exit handler:
the programs are killed before it quits.

A hub's ``rappture -execute`` (the stand-in the Rappture tests use) runs the program: it ends at SIGTERM, its
program does not. Real server processes, the official client, a real SIGTERM, a real redis-server for the
workers; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from scaleout.redis_server import RedisServer, find_redis, free_port
from support import command_server, installed, mcp_client, wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="a process's state read in /proc")

STANDIN = Path(__file__).parent / "standin" / "rappture"

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>deaf</id><command>python3 @tool/deaf.py @driver</command><limits><cputime>600</cputime></limits></tool>
  <input><string id="title"><default>none</default></string></input>
</run>
"""

# Deaf to SIGTERM; ends by itself when the test says stop (so nothing outlives the test either way).
PROGRAM = """import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open("pid", "w") as f:
    f.write(str(os.getpid()))
while not os.path.exists(os.path.join(os.path.dirname(sys.argv[0]), "stop")):
    time.sleep(0.05)
"""


@contextlib.contextmanager
def redis_url(workers: int, tmp_path: Path) -> Iterator[str]:
    """A real redis-server's URL for ``--workers``; none for one process."""
    if workers == 1:
        yield ""
        return
    redis = RedisServer(installed(find_redis(), "redis-server"), tmp_path).start()
    try:
        yield redis.url
    finally:
        redis.stop()


@pytest.mark.timeout(150)
@pytest.mark.parametrize(("workers", "grace", "quit_now"),
                         [(1, ["--exit-grace", "2"], False), (2, ["--exit-grace", "2"], False), (1, [], False),
                          (1, [], True)],
                         ids=["grace-2", "grace-2-workers-2", "default-grace", "sigterm-again"])
def test_a_program_deaf_to_sigterm_is_gone_once_its_server_exited(
    workers: int, grace: list[str], quit_now: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rappture").symlink_to(STANDIN)
    (bin_dir / "python3").symlink_to(sys.executable)
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL)
    (tool / "deaf.py").write_text(PROGRAM)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("MCP_TOKEN", "")
    program = 0
    with redis_url(workers, tmp_path) as state_url:
        scale = ["--workers", str(workers), "--state-url", str(state_url)] if workers > 1 else []
        try:
            with command_server("rappture", str(tool / "tool.xml"), "--port", str(free_port()), *grace, *scale,
                                 log=tmp_path / "server.log", cwd=tmp_path) as served:

                async def stop_during_a_call() -> int:
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
                        if quit_now:  # told again while it waits for the call: it quits at once
                            await anyio.to_thread.run_sync(lambda: wait_until(
                                lambda: "again to quit now" in served.output, "the wait"))
                            served.process.send_signal(signal.SIGTERM)
                        await anyio.to_thread.run_sync(lambda: served.process.wait(60))
                        calls.cancel_scope.cancel()
                    return pid

                program = anyio.run(stop_during_a_call)
                assert served.process.returncode == (128 + signal.SIGTERM if quit_now else 0), served.output
                # (the exit killed it: a moment for the kernel to end it, and for init to reap it)
                wait_until(lambda: not running(program), "the program to be gone after its server's exit",
                           timeout=10)
        finally:
            (tool / "stop").write_text("")
            if program and running(program):
                os.kill(program, signal.SIGKILL)
