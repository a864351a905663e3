"""What the tests of a run folders' sweep (:mod:`nanohubmcp.sources.run_folders`) make: a pid no process has, a
folder aged with ``os.utime``, a real program running in a run as a run's is, a real process holding a lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]
HOLDER = (
    "import fcntl, sys, time\n"
    "lock = open(sys.argv[1], 'wb')\n"
    "fcntl.flock(lock, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)
DAY = 86_400
"""Seconds."""


def dead_pid() -> int:
    """A pid no process has here (a process that ran and was waited for)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    return gone.pid


def age(parent: Path, seconds: float) -> None:
    """Make everything in ``parent`` (and it, last) last modified ``seconds`` ago."""
    then = time.time() - seconds
    for folder, dirs, files in os.walk(parent, topdown=False):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (then, then), follow_symlinks=False)
    os.utime(parent, (then, then))


def run_parent(parent: Path, run: str) -> Path:
    """Make ``parent`` as a server makes its run folders' parent: its lock file (``owner.lock``, no one holding it)
    and the run ``run`` with a ``driver.xml``; returns ``parent``."""
    (parent / run).mkdir(parents=True)
    (parent / run / "driver.xml").write_text("<run/>")
    (parent / "owner.lock").touch()
    return parent


def program_in(parent: Path, run: str, mark: str, programs: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """A program running in ``parent``'s run ``run`` as a run's program is: in a session of its own, with the
    run's ``mark`` in its environment, its group noted beside the run; added to ``programs`` (to be killed)."""
    folder = parent / run
    env = {**os.environ, mark: str(folder.resolve())}
    program = subprocess.Popen(SLEEPER, cwd=folder, start_new_session=True, env=env)
    programs.append(program)
    (parent / (run + ".group")).write_text(str(program.pid))
    return program


def hold_lock(lock: Path, programs: list[subprocess.Popen[bytes]]) -> None:
    """Have a real process hold ``flock`` on ``lock`` (returns once it is held); added to ``programs``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE)
    programs.append(holder)
    assert holder.stdout is not None
    assert holder.stdout.readline() == b"held\n"
