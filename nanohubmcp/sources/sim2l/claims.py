"""A Sim2L run's claim: while one thread makes a run, an identical call waits for it, in this process and in
every other process sharing the runs' directory (the workers of ``--workers``, a job's process).

Threads of one process wait on a thread lock per claim file, kept in one table for the whole process (two
:class:`~.store.RunStore` objects of one Sim2L exclude each other too), keyed by the file's real path: the
same however the path is spelled, and the same after its folder is removed and made anew while a claim is
held (keyed by the folder's inode, a thread then got a second claim of the path at once; review r22 N5).
Processes wait on a POSIX record lock (``fcntl.lockf``) of the claim file. A record lock belongs to the
process that took it, never to a process forked from it: a ``processes`` job, or that executor's manager,
forked while a claim is held holds nothing, so a process waiting for the run gets it as soon as the holder
lets go, and the forked child may claim the same run itself (it starts with an empty table: the thread locks
it was copied with belong to threads it does not have). Off POSIX (no ``fcntl``) only the threads of one
process wait for each other; so it is, too, where no record lock can be taken (``lockf`` fails with an error
other than ``EDEADLK``: ``ENOLCK`` on an NFSv3 home without ``lockd``, ``EOPNOTSUPP`` on some FUSE file
systems), said once per folder by a warning of this module's logger (:class:`..unlockable.Unlockable`).

Two rules of record locks shape the code. Closing any descriptor of the file lets go of the process's lock:
only this module opens claim files, and the thread lock lets one thread of a process have a given one open.
A holder removes the claim file only while the path still names the file it locked: once the folder was made
anew, the path may name another process's claim, which it must not take away.
The kernel refuses a wait that would close a cycle of processes (``EDEADLK``), counting a process as one
owner: process A holding run 1 while another of its threads waits for run 2, held by process B whose other
thread waits for run 1, is such a cycle, though each holder will let go. A refused wait is tried again after
a pause (:data:`CYCLE_PAUSE_SECONDS`, doubled up to :data:`CYCLE_PAUSE_MAX_SECONDS`).

A claim file outlives its run only when its process ended inside the run (SIGKILL, the OOM killer, a stop
that exits before the run's thread let go): :func:`sweep_claims` (a server's start, the ``--workers`` parent
after a worker died) removes the claim files of a folder that no process holds, taking each one's lock without
waiting as a holder would; it leaves a folder's files where no record lock can be taken (it cannot tell).

This module does not name the claim files (:class:`~.store.RunStore` does) nor decide what a run is.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator

from ...server.wire.fork_safe import after_fork_in_child
from ...server.wire.state_dir import private_folder
from ..unlockable import Unlockable

try:
    import fcntl
except ImportError:  # (not on Windows: only the threads of one process wait for each other)
    fcntl = None  # type: ignore[assignment]

__all__ = ["CYCLE_PAUSE_MAX_SECONDS", "CYCLE_PAUSE_SECONDS", "SWEEP_LIMIT", "claimed", "in_use", "sweep_claims"]

CYCLE_PAUSE_SECONDS = 0.01
"""The first pause before asking again for a claim whose wait the kernel refused as a cycle (seconds)."""
CYCLE_PAUSE_MAX_SECONDS = 0.5
"""The longest such pause (seconds): how late at most a claim is taken once the cycle is gone."""

SWEEP_LIMIT = 10_000
"""The most claim files one :func:`sweep_claims` looks at (its work is bounded; the next sweep goes on)."""
SUFFIX = ".claim"

Lockf = Callable[[int, int], object]
"""How a record lock is taken: ``fcntl.lockf(fd, operation)``'s shape."""

_log = logging.getLogger(__name__)
_UNLOCKABLE = Unlockable(
    _log,
    "lockf",
    "identical Sim2L calls of different processes (the workers of --workers, processes jobs) may each run the "
    "notebook, rather than one waiting for the other",
)


class _Table:
    """This process's thread locks, one per claim file in use, each with the number of threads using it."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextlib.contextmanager
    def idle(self, key: str) -> Iterator[bool]:
        """True while no thread of this process holds or waits for ``key``, which none takes meanwhile (they
        wait); False (at once) when one does."""
        with self.guard:
            if key in self.locks:
                yield False
                return
            lock = threading.Lock()
            lock.acquire()
            self.locks[key] = (lock, 1)
        try:
            yield True
        finally:
            with self.guard:
                held, users = self.locks[key]
                if users <= 1:
                    del self.locks[key]
                else:
                    self.locks[key] = (held, users - 1)
            lock.release()

    @contextlib.contextmanager
    def turn(self, key: str) -> Iterator[None]:
        with self.guard:
            lock, users = self.locks.get(key, (threading.Lock(), 0))
            self.locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self.guard:
                lock, users = self.locks[key]
                if users <= 1:
                    del self.locks[key]
                else:
                    self.locks[key] = (lock, users - 1)


_table = _Table()


def _forked() -> None:  # the child has none of the threads that held or waited for these locks
    global _table
    _table = _Table()


after_fork_in_child(_forked)


def in_use() -> int:
    """The number of claim files this process's threads hold or wait for (0 once every claim is let go)."""
    return len(_table.locks)


@contextlib.contextmanager
def claimed(path: str, *, lockf: Lockf | None = None) -> Iterator[None]:
    """Hold the claim file ``path``: one thread of all the processes sharing it at a time (of this process
    only where no record lock can be taken in its folder).

    The file is made (mode ``0o600``, its folder owner-only) and removed before letting go. ``lockf`` takes the
    record lock (``fcntl.lockf``, the default; given by tests only, to make it fail as NFS without ``lockd``).

    Raises:
        OSError: the folder or the file cannot be made or locked.

    Example:
        ```python
        with claimed("/state/sim2l/.running/<run id>.claim"):
            ...  # make the run; an identical call waits here
        ```
    """
    folder = os.path.dirname(path) or "."
    private_folder(folder)
    # one table entry for the path however it is spelled, and after its folder is made anew
    with _table.turn(os.path.join(os.path.realpath(folder), os.path.basename(path))):
        if fcntl is None:
            yield
            return
        with _locked(path, lockf or fcntl.lockf):
            yield


@contextlib.contextmanager
def _locked(path: str, lockf: Lockf) -> Iterator[None]:
    """Hold a record lock of the file ``path``. The holder removes the file before letting go; a waiter that
    then gets the lock of the removed file sees that ``path`` no longer names what it locked and locks the
    path anew, so two processes never both hold a claim of one path."""
    owner = os.getpid()
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            refused = _wait_for(fd, lockf)
            if refused is not None:  # no record lock here: this process's threads wait for each other only
                _UNLOCKABLE.say(os.path.dirname(path) or ".", refused)
                try:
                    yield
                finally:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                return
            if not _names(path, fd):
                continue
            try:
                yield
            finally:
                # (a child forked from the holding thread holds nothing to remove; a path made anew meanwhile
                # names another claim, perhaps held)
                if os.getpid() == owner and _names(path, fd):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
            return
        finally:
            os.close(fd)  # (closing lets go of the lock)


def sweep_claims(folder: str, *, limit: int = SWEEP_LIMIT) -> int:
    """Remove the claim files (``*.claim``) in ``folder`` that no process holds: those whose run's process
    ended inside it. Looks at ``limit`` files at most, and never waits: a claim held (by a thread of this
    process or another process) is left, and so is every file where no record lock can be taken (or off POSIX).
    Returns the number removed; a folder that cannot be read removes none."""
    if fcntl is None:
        return 0
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in itertools.islice(entries, limit) if entry.name.endswith(SUFFIX)]
    except OSError:
        return 0
    real = os.path.realpath(folder)
    removed = 0
    for name in names:
        with _table.idle(os.path.join(real, name)) as idle:
            if idle and _unheld_removed(os.path.join(folder, name)):
                removed += 1
    return removed


def _unheld_removed(path: str) -> bool:
    """Remove the claim file ``path`` if no process holds its lock (taken without waiting, as a holder
    removes it: the path must still name the file locked); whether it was removed."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # gone meanwhile, a link, not ours
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_uid != os.getuid():
            return False
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held (EAGAIN/EACCES), or no record lock here: cannot tell
            return False
        if not _names(path, fd):
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
            return True
        return False
    finally:
        os.close(fd)


def _names(path: str, fd: int) -> bool:
    """Whether ``path`` names the file open as ``fd``."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


def _wait_for(fd: int, lockf: Lockf) -> OSError | None:
    """Wait for the record lock of ``fd``; the error when none can be taken there (None: taken)."""
    pause = CYCLE_PAUSE_SECONDS
    while True:
        try:
            lockf(fd, fcntl.LOCK_EX)
            return None
        except OSError as error:
            if error.errno != errno.EDEADLK:
                return error
        # another process waits for a claim this one holds: its holder will let go; ask again later
        time.sleep(pause)
        pause = min(pause * 2, CYCLE_PAUSE_MAX_SECONDS)
