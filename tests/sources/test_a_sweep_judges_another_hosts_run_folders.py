"""A sweep of run folders judges another host's folders too: by the lock where locks are seen across hosts, else
by age (the lead's r28 sweep task).

A folder's name holds its host, and a sweep judged its own host's only (review r27 #8 (b)). So a server whose host
name changes from one start to the next (a container: a new name each start) never swept its killed
predecessors' folders, whose lock nobody held; and where no lock could be trusted across hosts (a ``nolock``
NFS mount, or ``flock`` failing: NFSv3 without ``lockd``) another host's folder, and this host's where
``flock`` fails, stayed for ever. Now:

* where a lock is seen by every host that sees the directory (a local file system here: ``/tmp``), another
  host's folder whose lock is free (and no longer brand new) is removed, its programs killed; one whose lock a
  live process holds is left;
* where it is not (``locks_reach_hosts`` says no, as for a ``nolock`` mount) or ``flock`` fails (``ENOLCK``,
  through the ``flock`` parameter: no file system here fails it), a folder is removed once nothing in it was
  modified for :data:`ABANDONED_AFTER_DAYS` days, and left before.

Real folders, real files (ages set with ``os.utime``), real programs and a real process holding the lock.
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest
from support import wait_until
from swept_folders import DAY, age, dead_pid, hold_lock, program_in, run_parent

from nanohubmcp.sources.run_folders import ABANDONED_AFTER_DAYS, MADE_GRACE_SECONDS, RunFolders, host_name

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="programs found through /proc (Linux)")

MARK = "OTHERHOSTTEST_RUN"
OTHER = "node17.cluster-a"


def _no_locks(fd: int, operation: int) -> None:
    raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))


def _folder(base: Path, host: str, pid: int, tag: str = "abcd1234") -> Path:
    return run_parent(base / f"otherhosttest-{host}-{pid}-{tag}", "run-efgh5678")


@pytest.mark.timeout(120)
def test_a_free_lock_of_another_host_is_nobodys_where_locks_reach_every_host(
    lock_reaching_path: Path, programs: list[subprocess.Popen[bytes]]
) -> None:
    tmp_path = lock_reaching_path
    pid = dead_pid()
    predecessor = _folder(tmp_path, OTHER, pid, "abcd1234")  # a killed container's, under its own host name
    program = program_in(predecessor, "run-efgh5678", MARK, programs)
    age(predecessor, 3600)
    alive = _folder(tmp_path, OTHER, pid, "ijkl9012")  # a running one's, whose lock is held
    age(alive, 30 * DAY)
    hold_lock(alive / "owner.lock", programs)
    young = _folder(tmp_path, OTHER, pid, "mnop3456")  # just made: its process takes the lock next

    removed = RunFolders("otherhosttest-", MARK).sweep(tmp_path)

    assert removed == [predecessor]
    assert not predecessor.exists()
    wait_until(lambda: program.poll() is not None, "the predecessor's orphan program to be killed")
    assert (alive / "run-efgh5678").is_dir()
    assert (young / "run-efgh5678").is_dir()
    age(young, MADE_GRACE_SECONDS + 60)
    assert RunFolders("otherhosttest-", MARK).sweep(tmp_path) == [young]


@pytest.mark.parametrize("setting", ["nolock", "flock fails"])
def test_a_folder_that_cannot_be_judged_by_its_lock_goes_once_abandoned(tmp_path: Path, setting: str) -> None:
    folders = (
        RunFolders("otherhosttest-", MARK, locks_reach_hosts=lambda base: False)
        if setting == "nolock"
        else RunFolders("otherhosttest-", MARK, flock=_no_locks)
    )
    pid = dead_pid()
    old = _folder(tmp_path, OTHER, pid, "abcd1234")
    age(old, (ABANDONED_AFTER_DAYS + 1) * DAY)
    recent = _folder(tmp_path, OTHER, pid, "ijkl9012")
    age(recent, (ABANDONED_AFTER_DAYS - 1) * DAY)
    busy = _folder(tmp_path, OTHER, pid, "mnop3456")  # old but for one file its run wrote today
    age(busy, (ABANDONED_AFTER_DAYS + 30) * DAY)
    os.utime(busy / "run-efgh5678" / "driver.xml")
    unlocked = _folder(tmp_path, OTHER, pid, "qrst7890")  # killed between making its folder and its lock
    (unlocked / "owner.lock").unlink()
    age(unlocked, (ABANDONED_AFTER_DAYS + 1) * DAY)
    survivors = [recent, busy]
    if setting == "flock fails":  # this host's too: a sweep cannot lock them either
        mine_old = _folder(tmp_path, host_name(), pid, "uvwx1234")
        age(mine_old, (ABANDONED_AFTER_DAYS + 1) * DAY)
        mine_recent = _folder(tmp_path, host_name(), pid, "yzab5678")
        survivors.append(mine_recent)

    removed = folders.sweep(tmp_path)

    expected = {old, unlocked} | ({mine_old} if setting == "flock fails" else set())
    assert set(removed) == expected
    assert not any(folder.exists() for folder in expected)
    assert all((folder / "run-efgh5678").is_dir() for folder in survivors)
