"""``nanohubmcp sim2l NB.ipynb`` killed with SIGKILL during a call (the OOM killer) leaves what the notebook's
cell started running, reparented, with no time limit: the kernel ends by itself once its parent is gone, but
not the processes in its group. The next ``nanohubmcp sim2l`` serving from the same state directory kills
them at its start, and removes the killed server's scratch folder (the notebook with the caller's inputs).

Found by a fresh-user trial (orphan2): ``subprocess.run(['sleep', '107'])`` in the computing cell lived on with
PPID 1, also after the next server of the same notebook started. Real server processes, a real kernel, a real
SIGKILL; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from scaleout.redis_server import free_port
from sim2l.cooling_variant import cooling_variant
from support import wait_until

pytestmark = [pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)"),
              pytest.mark.slow]

# What the cell starts: runs on after its kernel is gone, until the test says stop (nothing outlives the test).
PROGRAM = """import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
"""


def stuck_sim2l(folder: Path, *, simtool_late: bool = False) -> Path:
    """The cooling Sim2L whose computing cell, for ``points=17``, notes its kernel's pid in ``folder/kernel``
    and runs a program that notes its own in ``folder/program`` and waits for ``folder/stop``; with
    ``simtool_late``, simtool imported after that (see :func:`~sim2l.cooling_variant.cooling_variant`)."""
    code = ("import os, subprocess, sys\n"
            "if points == 17:\n"
            f"    open({str(folder / 'kernel')!r}, 'w').write(str(os.getpid()))\n"
            f"    subprocess.run([sys.executable, '-c', {PROGRAM!r}, {str(folder / 'program')!r}, "
            f"{str(folder / 'stop')!r}])\n")
    notebook = folder / "nb"
    notebook.mkdir()
    return cooling_variant(notebook, code, simtool_late=simtool_late)


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[1])


def noted(path: Path) -> int:
    """The pid written in ``path``, once written."""
    wait_until(lambda: path.exists() and path.read_text(), f"the pid in {path.name}", timeout=120)
    return int(path.read_text())


def call_in_background(port: int) -> None:
    def call() -> None:
        with contextlib.suppress(httpx.HTTPError):  # (the process serving it is killed)
            httpx.post(f"http://127.0.0.1:{port}/tools/cooling", json={"points": 17}, timeout=200)

    threading.Thread(target=call, daemon=True).start()


@contextlib.contextmanager
def sim2l_server(notebook: Path, state: Path, log: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``nanohubmcp sim2l notebook`` on a free port, its output in ``log``; stopped (SIGTERM) at the end."""
    port = free_port()
    env = {**os.environ, "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(state)}
    command = [sys.executable, "-m", "nanohubmcp", "sim2l", str(notebook), "--port", str(port), *extra]
    with log.open("ab") as out:  # (run elsewhere than the checkout: `-m` imports the package from the cwd first)
        server = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                  cwd=state.parent, start_new_session=True)
    try:
        wait_until(lambda: server.poll() is None and b"MCP Server" in log.read_bytes(), "the banner", timeout=120)
        yield server, port
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        server.wait(30)


@contextlib.contextmanager
def stuck_run(folder: Path, *, simtool_late: bool = False) -> Iterator[tuple[Path, Path, Path]]:
    """The stuck Sim2L (:func:`stuck_sim2l`), a state directory and a server log in ``folder``; its program,
    whatever became of it, is told to stop at the end (and killed if it still runs)."""
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    try:
        yield stuck_sim2l(folder, simtool_late=simtool_late), folder / "state", folder / "server.log"
    finally:
        (folder / "stop").write_text("")
        program = folder / "program"
        if program.exists() and program.read_text() and running(int(program.read_text())):
            os.kill(int(program.read_text()), signal.SIGKILL)


def scratch_folders(state: Path) -> list[Path]:
    """The processes' folders of scratch runs under the state directory."""
    return list((state / "sim2l" / ".running").glob("nanohubmcp-sim2l-*"))


@pytest.mark.timeout(300)
def test_the_next_server_kills_what_a_killed_servers_notebook_started(tmp_path: Path) -> None:
    with stuck_run(tmp_path, simtool_late=True) as (notebook, state, log):
        with sim2l_server(notebook, state, log) as (server, port):
            call_in_background(port)
            kernel, program = noted(tmp_path / "kernel"), noted(tmp_path / "program")
            assert parent_of(kernel) == server.pid
            run = Path(os.readlink(f"/proc/{kernel}/cwd"))  # (the run's scratch folder)
            server.kill()
            server.wait(30)
        wait_until(lambda: not running(kernel), "the kernel to end by itself (its parent is gone)", timeout=30)
        assert running(program)  # nothing stopped it: the server was killed
        with sim2l_server(notebook, state, log):
            wait_until(lambda: not running(program), "the next server to kill the program", timeout=15)
            wait_until(lambda: not run.exists(), "the killed server's scratch folder to go")  # (the caller's inputs)
            assert not [folder for folder in scratch_folders(state) if f"-{server.pid}-" in folder.name]
