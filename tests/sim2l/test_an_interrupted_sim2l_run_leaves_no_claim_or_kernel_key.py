"""An interrupted Sim2L run leaves neither its claim file nor its kernel's connection file behind.

Found by a fresh-user trial (trial51 F10 a, b): every killed or stopped run left ``<state>/sim2l/.running/<run
id>.claim`` (no sweep removed them: they accumulated), and a server killed with SIGKILL left its kernel's
connection file, ``/tmp/tmpXXXX.json`` (the kernel's ports and the HMAC key signing its messages), in /tmp for
good. Now the kernel's connection file is in the server's own scratch folder, which the next start's sweep
removes, and that sweep removes the claims no process holds — never one a live process holds.
Real server processes, a real kernel, a real SIGKILL; every wait is for a condition.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from sim2l.test_a_killed_servers_sim2l_kernel_is_stopped_at_the_next_start import (
    call_in_background,
    noted,
    sim2l_server,
    stuck_run,
)
from support import wait_until

from nanohubmcp.sources.sim2l.store import RunStore, run_id

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)")


def claims(state: Path) -> list[Path]:
    return list((state / "sim2l" / ".running").glob("*.claim"))


def connection_file(kernel: int) -> Path:
    """The connection file the kernel process was started with (``-f PATH``)."""
    words = Path(f"/proc/{kernel}/cmdline").read_bytes().split(b"\0")
    return Path(words[words.index(b"-f") + 1].decode())


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_killed_servers_claim_and_kernel_connection_file_go_at_the_next_start(tmp_path: Path) -> None:
    with stuck_run(tmp_path, simtool_late=True) as (notebook, state, log):
        with sim2l_server(notebook, state, log) as (server, port):
            call_in_background(port)
            kernel = noted(tmp_path / "kernel")
            noted(tmp_path / "program")
            key = connection_file(kernel)
            assert key.exists()
            assert claims(state)
            server.kill()
            server.wait(30)
        wait_until(lambda: not running(kernel), "the kernel to end by itself (its parent is gone)", timeout=30)
        left = claims(state)
        assert left  # (the killed server could not remove its claim)
        with sim2l_server(notebook, state, log):
            wait_until(lambda: not [claim for claim in left if claim.exists()], "the killed server's run claim to go")
            wait_until(lambda: not key.exists(), f"the killed kernel's connection file (its key) to go: {key}")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_stopped_servers_run_leaves_no_claim_or_connection_file(tmp_path: Path) -> None:
    with stuck_run(tmp_path, simtool_late=True) as (notebook, state, log):
        with sim2l_server(notebook, state, log) as (server, port):
            call_in_background(port)
            kernel = noted(tmp_path / "kernel")
            key = connection_file(kernel)
            assert key.exists()
        assert server.returncode is not None  # (stopped with SIGTERM)
        assert not key.exists(), f"the stopped kernel's connection file is left: {key}"
        assert claims(state) == [], "the stopped run's claim is left"


_HOLD = """
import sys
from nanohubmcp.sources.sim2l.store import RunStore, run_id
with RunStore(sys.argv[1], "demo", "r1").claim(run_id({"x": 1})):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_the_sweep_leaves_a_claim_another_process_or_thread_holds(tmp_path: Path) -> None:
    from nanohubmcp.sources.sim2l.claims import sweep_claims

    store = RunStore(str(tmp_path), "demo", "r1")
    running_folder = str(tmp_path / ".running")
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        held = tmp_path / ".running" / f"{run_id({'x': 1})}.claim"
        with store.claim(run_id({"x": 2})):  # held by a thread of this process
            mine = tmp_path / ".running" / f"{run_id({'x': 2})}.claim"
            (tmp_path / ".running" / "left.claim").write_text("")  # a dead process's
            assert sweep_claims(running_folder) == 1
            assert held.exists()
            assert mine.exists()
            assert not (tmp_path / ".running" / "left.claim").exists()
        assert not mine.exists()
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0
    assert not held.exists()
    assert os.listdir(running_folder) == []


def test_the_sweep_looks_at_a_bounded_number_of_files(tmp_path: Path) -> None:
    from nanohubmcp.sources.sim2l.claims import sweep_claims

    for index in range(5):
        (tmp_path / f"{index}.claim").write_text("")
    assert sweep_claims(str(tmp_path), limit=3) <= 3
    assert len(list(tmp_path.glob("*.claim"))) >= 2
    assert sweep_claims(str(tmp_path)) >= 2
    assert list(tmp_path.glob("*.claim")) == []
