"""A sweep of run folders leaves another host's folders, and their programs, alone (review r27 #8 (b)).

A Sim2L's run folders are in its results directory, on a hub the user's NFS home, shared with the Slurm nodes
its jobs may run on. A folder's pid means nothing on another host, and on a mount whose locks are each
client's own (``nolock``) the other host's lock is not seen here either: the server's sweep judged such a
folder stale and removed a running job's scratch. A folder's name now holds its host
(``<prefix><host>-<pid>-<random>``); a sweep judges another host's folder by its lock only where locks are seen
across hosts (``locks_reach_hosts``: here told no, as for a ``nolock`` mount; the other cases are in
``test_a_sweep_judges_another_hosts_run_folders.py``), else leaves it until it is abandoned (days untouched).

Real folders, real programs: two folders named after the same dead pid, with an unlocked ``owner.lock``
(what a ``nolock`` mount shows of another host's lock) and a program noted as running in each, one named for
another host and one for this host.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest
from support import running, wait_until
from swept_folders import dead_pid, program_in

from nanohubmcp.sources.run_folders import RunFolders

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="programs found through /proc (Linux)")

MARK = "HOSTTEST_RUN"
HOST = re.sub(r"[^a-z0-9.-]", "_", socket.gethostname().lower())[:64] or "localhost"  # as run_folders.host_name


@pytest.mark.timeout(120)
def test_a_sweep_removes_this_hosts_stale_folder_and_leaves_another_hosts(
    tmp_path: Path, programs: list[subprocess.Popen[bytes]]
) -> None:
    gone = dead_pid()  # the dead process (or the other host's process) a folder names

    def folder(host: str) -> Path:
        parent = tmp_path / f"hosttest-{host}-{gone}-abcd1234"
        (parent / "run-efgh5678").mkdir(parents=True)
        (parent / "owner.lock").touch()  # nobody's lock to be seen here
        program_in(parent, "run-efgh5678", MARK, programs)
        return parent

    other = folder("node17.cluster-a")
    mine = folder(HOST)
    folders = RunFolders("hosttest-", MARK, locks_reach_hosts=lambda base: False)  # a nolock mount's

    assert folders.sweep(tmp_path) == [mine]

    wait_until(lambda: programs[1].poll() is not None, "this host's orphan program to be killed")
    assert not mine.exists()
    assert (other / "run-efgh5678").is_dir()
    assert running(programs[0].pid)  # the other host's job goes on

    made = folders.make(tmp_path)
    assert made.parent.name.startswith(f"hosttest-{HOST}-{os.getpid()}-")
    assert folders.sweep(tmp_path) == []  # this process's own, running: left


def test_the_host_in_a_folders_name_has_no_path_or_pattern_characters() -> None:
    from nanohubmcp.sources.run_folders import host_name

    name = host_name()
    assert name == HOST
    assert name
    assert len(name) <= 64
    assert all(c.isascii() and (c.isalnum() or c in ".-_") and not c.isupper() for c in name)
