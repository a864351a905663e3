"""A Sim2L notebook's cell may start a helper in a session of its own (``start_new_session=True``,
``setsid``): it is in no process group the run recorded, and works elsewhere than in the run's scratch
folder, but it carries the run's mark (``NANOHUBMCP_SIM2L_RUN``, inherited from the kernel). It ends with its
run: at the cell's time limit, at the server's graceful stop, and — the server killed with SIGKILL — at the
next server's start. (Fresh-user trial 51, F12.)

Real ``nanohubmcp sim2l`` processes, a real kernel, real signals; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from sim2l.cooling_variant import cooling_variant
from sim2l.test_a_killed_servers_sim2l_kernel_is_stopped_at_the_next_start import (
    call_in_background,
    noted,
    sim2l_server,
)
from support import wait_until

pytestmark = [pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="found through /proc (Linux)"),
              pytest.mark.slow]


@contextlib.contextmanager
def detaching_sim2l(folder: Path) -> Iterator[tuple[Path, Path, Path]]:
    """The cooling Sim2L whose computing cell, for ``points=17``, starts a helper in a new session working in
    ``/``, notes its pid in ``folder/helper`` and waits for ``folder/stop`` (before simtool's import: the cells
    before it take 0.2 s or less); a state directory and a server log
    in ``folder``. The helper is killed at the end if it still runs."""
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    helper, stop = folder / "helper", folder / "stop"
    code = ("import os, subprocess, sys, time\n"
            "if points == 17:\n"
            "    h = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], cwd='/', "
            "start_new_session=True)\n"
            f"    open({str(folder / 'helper.tmp')!r}, 'w').write(str(h.pid))\n"
            f"    os.replace({str(folder / 'helper.tmp')!r}, {str(helper)!r})\n"
            f"    while not os.path.exists({str(stop)!r}):\n"
            "        time.sleep(0.05)\n")
    notebook = folder / "nb"
    notebook.mkdir()
    try:
        yield cooling_variant(notebook, code, simtool_late=True), folder / "state", folder / "server.log"
    finally:
        stop.write_text("")
        if helper.exists() and helper.read_text() and running(int(helper.read_text())):
            os.kill(int(helper.read_text()), signal.SIGKILL)


@pytest.mark.timeout(300)
def test_the_cell_time_limit_ends_the_helper(tmp_path: Path) -> None:
    with detaching_sim2l(tmp_path) as (notebook, state, log), \
            sim2l_server(notebook, state, log, "--cell-timeout", "4") as (_server, port):
        answer = httpx.post(f"http://127.0.0.1:{port}/tools/cooling", json={"points": 17}, timeout=200)
        assert answer.status_code != 200, answer.text
        helper = noted(tmp_path / "helper")
        wait_until(lambda: not running(helper), "the helper to end with its run", timeout=10)


@pytest.mark.timeout(300)
def test_a_graceful_stop_ends_the_helper(tmp_path: Path) -> None:
    with detaching_sim2l(tmp_path) as (notebook, state, log):
        with sim2l_server(notebook, state, log) as (server, port):
            call_in_background(port)
            helper = noted(tmp_path / "helper")
            server.send_signal(signal.SIGTERM)
            server.wait(60)
        wait_until(lambda: not running(helper), "the helper to end with its server", timeout=10)


@pytest.mark.timeout(300)
def test_the_next_start_ends_a_killed_servers_helper(tmp_path: Path) -> None:
    with detaching_sim2l(tmp_path) as (notebook, state, log):
        with sim2l_server(notebook, state, log) as (server, port):
            call_in_background(port)
            helper = noted(tmp_path / "helper")
            server.kill()
            server.wait(30)
        assert running(helper)  # nothing stopped it: the server was killed
        with sim2l_server(notebook, state, log):
            wait_until(lambda: not running(helper), "the next server to end the helper", timeout=15)
