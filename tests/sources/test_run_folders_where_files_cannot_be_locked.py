"""Run folders where ``flock`` fails (not "held": ``ENOLCK``), as on an NFSv3 home without ``lockd``.

The Sim2L run folders are in the results directory, on a hub the user's NFS home. ``RunFolders`` caught only
``BlockingIOError`` from ``flock``: any other ``OSError`` escaped from making a run's folder (every Sim2L call
failed) and from the sweep at a server's start (the server could not start once such a folder existed), review
r27 #8 (a). Now a folder is made without the lock, a warning says once that locks are not available there,
and a sweep leaves a folder it cannot lock (it cannot tell whether its process runs). A Sim2L run's claim
(:mod:`nanohubmcp.sources.sim2l.claims`, a ``lockf`` in the same directory) failed every call there too: now
only the threads of the process wait for each other, as off POSIX, said once.

Through the ``flock`` parameter of :class:`RunFolders` (``lockf`` of ``claimed``), the narrowest seam: no file
system this test can make fails ``flock`` that way. Tried on the test machine: ext4 (``/tmp``), tmpfs
(``/dev/shm``), ``/proc`` and ``/sys`` files all take a ``flock`` (the kernel's VFS does it for every local file
system; FUSE, too, takes it in the kernel unless the file system asks otherwise); only a descriptor opened
``O_PATH`` fails (``EBADF``), and the code opens its lock files itself. No NFS client or server, and no FUSE
library, is installed. Everything else is real: the folders, the files, the dead process's pid, the threads.
"""

from __future__ import annotations

import errno
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support import wait_until

from nanohubmcp.sources.run_folders import RunFolders, host_name
from nanohubmcp.sources.sim2l import claims
from nanohubmcp.sources.sim2l.claims import claimed, in_use
from nanohubmcp.sources.unlockable import Unlockable

pytestmark = pytest.mark.skipif(os.name != "posix", reason="flock (POSIX)")


def _no_locks(fd: int, operation: int) -> None:
    raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    return [message for message in said if "cannot be locked" in message]


def test_runs_get_their_folders_and_the_user_is_told_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.sources.run_folders")
    folders = RunFolders("nolocktest-", "NOLOCKTEST_RUN", flock=_no_locks)

    runs = [folders.make(tmp_path / "results", name="run-") for _ in range(3)]

    assert all(run.is_dir() for run in runs)
    assert len({run.parent for run in runs}) == 1
    assert (runs[0].parent / "owner.lock").is_file()
    said = _warnings(caplog)
    assert len(said) == 1, said
    assert str(tmp_path / "results") in said[0]
    assert os.strerror(errno.ENOLCK) in said[0]
    assert "(flock: " in said[0]  # which lock; and what follows:
    assert "run folders there are made without a lock" in said[0]


def test_a_sweep_leaves_a_folder_whose_lock_it_cannot_take(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.sources.run_folders")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    parent = tmp_path / f"nolocktest-{host_name()}-{gone.pid}-abcd1234"  # a killed process's, or a running one's
    # (recent: one abandoned for days goes, test_a_sweep_judges_another_hosts_run_folders.py)
    (parent / "run-efgh5678").mkdir(parents=True)
    (parent / "owner.lock").touch()
    folders = RunFolders("nolocktest-", "NOLOCKTEST_RUN", flock=_no_locks)

    folders.sweep_once(tmp_path)  # a server's start: no error
    assert folders.sweep(tmp_path) == []

    assert (parent / "run-efgh5678").is_dir()
    assert len(_warnings(caplog)) == 1


def test_a_run_is_claimed_by_one_thread_at_a_time(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.sources.sim2l.claims")
    path = str(tmp_path / ".running" / "abc.claim")
    inside, go = threading.Event(), threading.Event()
    order: list[str] = []

    def take(name: str) -> None:
        with claimed(path, lockf=_no_locks):
            order.append(name)
            inside.set()
            go.wait(30)

    first = threading.Thread(target=take, args=("first",))
    first.start()
    assert inside.wait(30)
    second = threading.Thread(target=take, args=("second",))
    second.start()
    key = os.path.join(os.path.realpath(tmp_path / ".running"), "abc.claim")
    wait_until(lambda: claims._table.locks.get(key, (None, 0))[1] == 2, "the second thread to wait for the claim")
    with claimed(str(tmp_path / ".running" / "other.claim"), lockf=_no_locks):
        order.append("other")  # another run's claim: taken at once
    go.set()
    first.join(30)
    second.join(30)

    assert order == ["first", "other", "second"]
    assert in_use() == 0
    assert not os.path.exists(path)
    said = [r.getMessage() for r in caplog.records if "cannot be locked" in r.getMessage()]
    assert len(said) == 1, said
    assert "(lockf: " in said[0]
    assert "may each run the notebook" in said[0]


def test_the_directories_said_are_remembered_up_to_a_limit(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="unlockabletest")
    said = Unlockable(logging.getLogger("unlockabletest"), "flock", "what follows", limit=3)
    error = OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))
    threads = [threading.Thread(target=said.say, args=("/first", error)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [r.getMessage() for r in caplog.records] == [
        f"nanohubmcp: files cannot be locked in /first (flock: {os.strerror(errno.ENOLCK)}): what follows"
    ]

    assert [said.say(f"/folder{n}", error) for n in range(5)] == [True] * 5
    assert said.remembered() == 3  # bounded: /first and /folder0, /folder1 forgotten
    assert said.say("/folder4", error) is False
    assert said.say("/first", error) is True  # forgotten, so said again
    with pytest.raises(ValueError, match="at least 1"):
        Unlockable(logging.getLogger("unlockabletest"), "flock", "what follows", limit=0)
