"""A sweep of run folders removes the folders of the naming before the host was in it, and stops their programs
(review r28 #5).

A server killed (SIGKILL, OOM) before the upgrade left ``<prefix><pid>-<random>/`` with its program running in
it; the sweep matched ``<prefix><host>-<pid>-<random>`` only, so that folder and its program stayed for good.
Such a name holds no host and cannot be proven this host's, so it is judged as another host's: by its lock
where locks are seen by every host that sees the directory (a local file system here: ``tmp_path``), else once
abandoned (:data:`ABANDONED_AFTER_DAYS`) — never by its pid alone, which may be another host's.

Real folders, real files (ages set with ``os.utime``), a real program running in the run with the run's mark and
its group noted, and a real process holding a live folder's lock.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import running, wait_until
from swept_folders import DAY, age, dead_pid, hold_lock, program_in, run_parent

from nanohubmcp.sources.run_folders import ABANDONED_AFTER_DAYS, MADE_GRACE_SECONDS, RunFolders

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="programs found through /proc (Linux)")

PREFIX = "oldnametest-"
MARK = "OLDNAMETEST_RUN"
RUN = "run-efgh5678"


def _old_folder(base: Path, pid: int, tag: str) -> Path:
    """A parent as the version before hosts made it: ``<prefix><pid>-<random>``, its lock file, one run."""
    return run_parent(base / f"{PREFIX}{pid}-{tag}", RUN)


@pytest.mark.timeout(120)
def test_an_old_named_folder_whose_lock_is_free_is_swept_and_its_program_stopped(
    lock_reaching_path: Path, programs: list[subprocess.Popen[bytes]]
) -> None:
    tmp_path = lock_reaching_path
    killed = _old_folder(tmp_path, dead_pid(), "abcd1234")  # a server killed before the upgrade
    program = program_in(killed, RUN, MARK, programs)
    age(killed, 3600)
    alive = _old_folder(tmp_path, dead_pid(), "ijkl9012")  # a server of that version still running somewhere
    kept = program_in(alive, RUN, MARK, programs)
    age(alive, 30 * DAY)
    hold_lock(alive / "owner.lock", programs)
    young = _old_folder(tmp_path, dead_pid(), "mnop3456")  # being made by such a server: it locks next
    unrelated = tmp_path / f"{PREFIX}notapid-abcd1234"  # not a run folder's name: never touched
    unrelated.mkdir()

    removed = RunFolders(PREFIX, MARK).sweep(tmp_path)

    assert removed == [killed]
    assert not killed.exists()
    wait_until(lambda: program.poll() is not None, "the old-named folder's program to be stopped")
    assert (alive / RUN).is_dir()
    assert running(kept.pid)
    assert (young / RUN).is_dir()
    assert unrelated.is_dir()
    age(young, MADE_GRACE_SECONDS + 60)
    assert RunFolders(PREFIX, MARK).sweep(tmp_path) == [young]


@pytest.mark.timeout(120)
def test_where_locks_are_each_hosts_own_an_old_named_folder_goes_once_abandoned(
    tmp_path: Path, programs: list[subprocess.Popen[bytes]]
) -> None:
    folders = RunFolders(PREFIX, MARK, locks_reach_hosts=lambda base: False)  # a nolock mount's
    recent = _old_folder(tmp_path, dead_pid(), "abcd1234")  # its pid not running here, its lock free here:
    program = program_in(recent, RUN, MARK, programs)  # still maybe another host's running job
    age(recent, (ABANDONED_AFTER_DAYS - 1) * DAY)
    old = _old_folder(tmp_path, dead_pid(), "ijkl9012")
    age(old, (ABANDONED_AFTER_DAYS + 1) * DAY)

    assert folders.sweep(tmp_path) == [old]

    assert not old.exists()
    assert (recent / RUN).is_dir()
    assert running(program.pid)
