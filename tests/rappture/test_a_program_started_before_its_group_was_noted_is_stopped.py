"""A process killed between starting a Rappture program and noting the program's process group (``<run>.group``)
left a run with no note: the sweep found nothing to stop there and the program ran on with no time limit
(ci on 0dcad9ee: the ``--workers`` worker, killed with SIGKILL while its thread had not yet written the note,
left its program running past the parent's clean-up). The sweep now takes such a run's group from the session
leader working in it whose environment names the run (a program is started leading a session of its own, with
``NANOHUBMCP_RAPPTURE_RUN`` set) — and leaves alone a process working there that leads nothing, and a session
leader without that mark: a user's login shell that went into the crashed server's folder (review r25 MED-3: it
was killed too).

Real processes; :func:`sweep` as the ``--workers`` parent and the next server call it; every wait is for a
condition.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import running
from support import wait_until

from nanohubmcp.sources.rappture.rundirs import RUN_MARK, sweep
from nanohubmcp.sources.run_folders import host_name

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)")

# The program: it starts a child in its own group (a solver it runs), then both wait to be stopped.
PROGRAM = """import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
time.sleep(600)
"""
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.timeout(120)
def test_a_run_without_its_group_note_has_its_program_and_the_programs_child_stopped(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)  # a pid no process has now: the dead process the folder is named after
    run = tmp_path / f"nanohubmcp-rappture-{host_name()}-{gone.pid}-abcd1234" / "rappture-stuck-efgh5678"
    run.mkdir(parents=True)
    (run / "stuck.py").write_text(PROGRAM)
    env = {**os.environ, RUN_MARK: str(run.resolve())}
    program = subprocess.Popen([sys.executable, "stuck.py"], cwd=run, start_new_session=True, env=env)
    bystander = subprocess.Popen(SLEEPER, cwd=run)  # works there, leads nothing: not the run's program
    shell = subprocess.Popen(SLEEPER, cwd=run, start_new_session=True)  # a user's shell that went there
    try:
        child = wait_until(lambda: children_of(program.pid), "the program's child")[0]
        assert not list(run.parent.glob("*.group"))  # no note: killed before writing it

        removed = sweep(str(tmp_path))

        assert removed == [run.parent]
        wait_until(lambda: program.poll() is not None, "the program to be killed")
        wait_until(lambda: not running(child), "the program's child to be killed")
        assert running(bystander.pid)
        assert running(shell.pid)
        assert not run.parent.exists()
    finally:
        for process in (program, bystander, shell):
            process.kill()
            process.wait(30)
