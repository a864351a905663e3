"""A process forked from one that kept results takes the results folder's lock on a file of its own.

``--workers N`` forks the serving processes; a results store whose lock file was opened before the
fork would be shared by parent and child (a ``flock`` belongs to the open file, which the fork
shares), so both would hold "the" lock at once and count the folder's bounds over each other.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from nanohubmcp.server.results.folder import LOCK_NAME, FolderLock


def open_lock_files(folder: Path) -> list[int]:
    """This process's descriptors open on ``folder``'s lock file."""
    target = str(folder / LOCK_NAME)
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == target:
                found.append(int(name))
        except OSError:
            continue
    return found


def test_the_child_of_a_fork_excludes_its_parent(tmp_path: Path) -> None:
    lock = FolderLock(str(tmp_path))
    with lock.holding(lambda: None):  # the parent opened the lock file
        pass
    (parents,) = open_lock_files(tmp_path)  # what the parent's lock holds it with
    pid = os.fork()
    if pid == 0:  # the child: while it holds the lock, the parent's open file must find it taken
        status = 3
        try:
            with lock.holding(lambda: None):
                try:
                    fcntl.flock(parents, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    status = 1  # the parent's open file got it too: no exclusion
                except BlockingIOError:
                    status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "parent and forked child held the folder's lock at once"
