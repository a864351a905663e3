"""Where a source's runs get their working directories, and removing what killed processes left there:
shared by the Rappture source (in the temporary directory) and the Sim2L source (in ``<runs>/.running``).

A process keeps the working directories of its runs in one parent of its own in a base directory,
``<prefix><host>-<pid>-<random>/`` (``<host>``: :func:`host_name`), and holds an exclusive lock on the file
``owner.lock`` in it for its life: the system releases the lock when the process ends, SIGKILL included. A
run removes its own directory when it ends (or, a Sim2L's, is moved into its store), and the process removes
its parent at exit. What a killed
process left (or a job's process of the ``processes`` executor, which runs no exit handler: its server sweeps
once that process ended, :mod:`nanohubmcp.server.executors.processes`), :meth:`RunFolders.sweep` removes —
after stopping the programs its runs left running there
(:mod:`.orphans`, Linux): a parent of this user and this host whose lock no process holds and whose pid is not
running (either alone could mislead: a lock file not yet locked, a pid seen from another pid namespace or reused).
Nothing else in the base directory is touched.

A base may be shared between hosts: a Sim2L's is in the results directory, on a hub the user's NFS home,
which processes on other hosts share (a Sim2L job on a Slurm node). A pid means nothing on another host, so a
parent whose host name is not this host's is judged by its lock alone, and only where that lock is seen by every
host that sees the base (:func:`.lock_reach.locks_reach_hosts`: a file system of one kernel, whoever sees it —
a container whose host name changes from one start to the next sweeps its killed predecessors' parents — or NFS
with its lock manager), and only once its lock file is older than :data:`MADE_GRACE_SECONDS` (a process on
another host makes its folder, then takes the lock). On a mount whose locks are each client's own (NFS
``nolock``) another host's held lock looks free here: its parents are not judged by their lock.

A parent named as earlier versions named them, ``<prefix><pid>-<random>`` (no host: a server killed before
an upgrade left it, and its programs may still run there), is judged as another host's. It cannot be proven
this host's: the Sim2L base is shared with other hosts (a Slurm node's job), and a temporary directory may be
shared by containers of other pid namespaces, so its pid may be another host's process (or nothing of this
host's) and, on a ``nolock`` mount, another host's held lock looks free here — judging it as this host's (pid
not running, lock free) would remove a running job's folder. As another host's, it is swept (its programs
stopped) at the next start where locks reach every host (a local temporary directory: as the old sweep did),
else once abandoned.

Where ``flock`` fails with an error other than "held" (``ENOLCK``, ``EOPNOTSUPP``: NFSv3 without ``lockd``,
some FUSE file systems), the process makes its parent without the lock, says so once per base directory
(a warning of this module's logger, :class:`.unlockable.Unlockable`), and a sweep cannot tell whether such a
parent's process still runs. A parent the sweep cannot judge — there, or another host's whose lock it cannot
trust — is removed once abandoned: nothing in it, down to its runs' own entries, modified for
:data:`ABANDONED_AFTER_DAYS` days (its process's exit removes it before that; a run of another host that
changes nothing there for that long loses its folder). A parent of this host whose pid is running is left.

Off POSIX (Windows) nothing is swept.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..server.wire.fork_safe import ForkSafeLock, after_fork_in_child
from .lock_reach import locks_reach_hosts
from .orphans import GROUP_SUFFIX, clock_ticks, record_group, stop_marked, stop_orphans
from .unlockable import Unlockable

__all__ = ["ABANDONED_AFTER_DAYS", "GROUP_SUFFIX", "MADE_GRACE_SECONDS", "MAX_WAITING", "RunFolders", "host_name",
           "record_group"]

ABANDONED_AFTER_DAYS = 7
"""A parent the sweep cannot judge by its lock (another host's where locks are not seen across hosts, any where
files cannot be locked) is removed once nothing in it, down to its runs' own entries, was modified for this
many days."""
MADE_GRACE_SECONDS = 600
"""Another host's parent is judged by its lock only once its lock file is this old (seconds): its process takes
the lock just after making the file, and the hosts' clocks may differ a little."""
AGE_SCAN_LIMIT = 10_000
"""The most entries of one parent looked at to tell whether it is abandoned (more: it is not judged so)."""

MAX_WAITING = 64
"""How many run directories may wait for the removal thread (:meth:`RunFolders.remove_soon`); past it a run's
caller removes its own."""

_LOCK = "owner.lock"
_log = logging.getLogger(__name__)
_UNLOCKABLE = Unlockable(
    _log,
    "flock",
    "run folders there are made without a lock, and a sweep cannot tell whether their process still runs: it "
    f"leaves a killed server's folders there until nothing in them changed for {ABANDONED_AFTER_DAYS} days",
)

Flock = Callable[[int, int], object]
"""How a lock is taken: ``fcntl.flock(fd, operation)``'s shape (raises ``BlockingIOError`` when it is held)."""

_making = ForkSafeLock()  # held while a parent is looked up or made (every source's: they are made rarely)


class RunFolders:
    """The run directories of one source, in this process's parent of each base directory it is asked for.

    Args:
        prefix: how a process's parent is named, ``<prefix><host>-<pid>-<random>`` (e.g.
            ``nanohubmcp-rappture-``).
        mark: the environment variable a run's program is started with, naming its run directory
            (resolved): how :meth:`sweep` tells a program whose group was never noted (:mod:`.orphans`).
        at_exit: called at this process's exit before its parents are removed (stopping the programs
            still running there, which the next sweep could no longer find).
        flock: takes the lock (``fcntl.flock``, the default; off POSIX none is taken). Given by the tests
            only: no file system of theirs makes ``flock`` fail as an NFS mount without ``lockd`` does.
        locks_reach_hosts: whether a lock taken in a base directory is seen by every host that sees it
            (:func:`.lock_reach.locks_reach_hosts`, the default). Given by the tests only: no file system of
            theirs keeps each client's locks its own as an NFS mount ``nolock`` does.
    """

    def __init__(
        self,
        prefix: str,
        mark: str,
        *,
        at_exit: Callable[[], object] | None = None,
        flock: Flock | None = None,
        locks_reach_hosts: Callable[[Path], bool] = locks_reach_hosts,
    ) -> None:
        self.prefix = prefix
        self.mark = mark
        self._at_exit = at_exit
        self._flock = flock if flock is not None else _SYSTEM_FLOCK
        self._locks_reach_hosts = locks_reach_hosts
        self._made: dict[Path, tuple[int, Path, IO[bytes]]] = {}  # base -> this process's pid, parent, held lock
        self._swept: set[tuple[int, Path]] = set()  # (process, base) swept (a forked child sweeps again: harmless)
        self._cleanups: dict[Path, Callable[[], object]] = {}
        # <host>-<pid>-<random>: mkdtemp's random part and the pid have no "-", so the host is what is before them;
        # <pid>-<random> (no host, one "-"): the naming of the versions before, which no name with a host matches
        self._named = re.compile(re.escape(prefix) + r"(?:([a-z0-9._-]{1,64})-)?(\d+)-[a-z0-9_]{8}")
        self._begun: dict[Path, int | None] = {}  # a run made and not yet removed -> when (orphans.clock_ticks)

    def make(self, base: str | os.PathLike[str], name: str = "") -> Path:
        """A new, empty working directory (mode ``0o700``, named ``<name><random>``) for one run, in this
        process's parent in ``base`` (made, with ``base``, when missing); the caller removes it (or moves it
        away, then :meth:`forget`) when the run ends.

        Raises:
            OSError: it cannot be made.
        """
        begun = clock_ticks()  # (before the run's folder exists: nothing started earlier can carry its mark)
        run = Path(tempfile.mkdtemp(prefix=name, dir=self._parent(Path(base))))
        self._begun[run] = begun
        return run

    def remove(self, run: Path) -> None:
        """Remove the working directory ``run`` of an ended run, and the note of its process group; first
        kill what still carries the run's mark (a helper its program started in a session of its own)."""
        self.forget(run)
        shutil.rmtree(run, ignore_errors=True)

    def remove_soon(self, run: Path) -> None:
        """:meth:`remove` ``run`` on this process's removal thread, and return at once: a run's answer need not
        wait for the scan of ``/proc`` for helpers carrying its mark and its files' removal (2-20 ms, more on a busy
        host). Removals are made one at a time, in order; one still waiting when the process exits is made by
        the exit's removal of the whole parent (a killed process's, by the next sweep), as a run still running
        then is. Past :data:`MAX_WAITING` removals waiting, the caller removes ``run`` itself: runs that end faster
        than their directories go wait for it, so the waiting directories (on disk) stay bounded."""
        if not _REMOVALS.put(self, run):
            self.remove(run)

    def forget(self, run: Path) -> None:
        """Remove the note of the process group of the ended run whose directory was ``run`` (moved away),
        killing first what still carries the run's mark (:func:`.orphans.stop_marked`: of the processes started
        since :meth:`make` made ``run``, the only ones that can carry it)."""
        stop_marked(self.mark, run, since=self._begun.pop(run, None))
        (run.parent / (run.name + GROUP_SUFFIX)).unlink(missing_ok=True)

    def _parent(self, base: Path) -> Path:
        with _making:
            made = self._made.get(base)
            if made is not None and made[0] == os.getpid() and made[1].is_dir():
                return made[1]
            pid = os.getpid()  # a forked child makes its own: its parent's is removed at the parent's exit
            begun = clock_ticks()
            base.mkdir(parents=True, exist_ok=True, mode=0o700)
            parent = Path(tempfile.mkdtemp(prefix=f"{self.prefix}{host_name()}-{pid}-", dir=base))
            lock = open(os.open(parent / _LOCK, os.O_WRONLY | os.O_CREAT, 0o600), "wb")  # noqa: SIM115 (held for life)
            self._try_lock(lock, base)
            self._made[base] = (pid, parent, lock)
            atexit.register(_remove, pid, parent, lock, self._at_exit, self.mark, begun)
            return parent

    def sweep(self, base: str | os.PathLike[str]) -> list[Path]:
        """Remove the run directories in ``base`` of processes that ended without removing them (killed),
        first killing the programs still running in them (:func:`.orphans.stop_orphans`); returns the
        parents removed. Another host's parents, and those of the old naming without a host, are judged by their
        lock where locks are seen across hosts, else (as any parent where files cannot be locked) removed once
        abandoned (:data:`ABANDONED_AFTER_DAYS`)."""
        if os.name != "posix":
            return []
        base = Path(base)
        try:
            with os.scandir(base) as entries:
                found = [(base / m[0], m[1], int(m[2])) for e in entries if (m := self._named.fullmatch(e.name))]
        except OSError:
            return []
        here = host_name()  # an old name's host (None) is not this host's
        shared = any(host != here for _, host, _ in found) and self._locks_reach_hosts(base)
        removed = []
        for parent, host, pid in found:
            if self._stale(base, parent, pid, mine=host == here, shared=shared):
                stop_orphans(parent, self.mark)
                shutil.rmtree(parent, ignore_errors=True)
                removed.append(parent)
        return removed

    def sweep_once(self, base: str | os.PathLike[str]) -> None:
        """:meth:`sweep` ``base``, the first time this process asks for it (a server registering a tool: its
        start)."""
        key = (os.getpid(), Path(base))
        if key not in self._swept:
            self._swept.add(key)
            self.sweep(base)

    def cleanup(self, base: str | os.PathLike[str]) -> Callable[[], object]:
        """What sweeps ``base`` (for ``after_worker_death``): the same callable each time for one base, so
        that it is registered once."""
        return self._cleanups.setdefault(Path(base), lambda: self.sweep(base))

    def _stale(self, base: Path, parent: Path, pid: int, *, mine: bool, shared: bool) -> bool:
        """Whether ``parent`` is a dead process's: ``mine``, of this host; ``shared``, locks in ``base`` are seen
        by every host."""
        try:
            facts = parent.lstat()
        except OSError:
            return False
        if not stat.S_ISDIR(facts.st_mode) or facts.st_uid != os.getuid():  # a link, a file, another user's
            return False
        if any(made[1] == parent for made in self._made.values()):
            return False
        if mine and pid != os.getpid() and _running(pid):  # this pid's: an earlier process's (the lock decides)
            return False
        now = time.time()
        try:  # for writing: NFS takes a flock as a whole-file record lock, which an exclusive one needs
            handle = os.open(parent / _LOCK, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            if mine:
                return True  # killed before it made its lock (and its pid is not running)
            return _abandoned(parent, now)  # or being made, on another host
        except OSError:
            return False
        with open(handle, "wb") as lock:  # released when closed
            free = self._try_lock(lock, base)  # None: cannot tell
            made = os.fstat(lock.fileno()).st_mtime
        if free is False:
            return False
        if free and (mine or (shared and made < now - MADE_GRACE_SECONDS)):
            return True
        return _abandoned(parent, now)

    def _try_lock(self, handle: IO[bytes], base: Path) -> bool | None:
        """True: the lock of ``handle`` taken; False: another process holds it; None: no lock can be taken in
        ``base`` (said once per base)."""
        if self._flock is None:
            return False
        try:
            self._flock(handle.fileno(), _EXCLUSIVE_NOW)
        except BlockingIOError:
            return False
        except OSError as error:
            _UNLOCKABLE.say(base, error)
            return None
        return True


class _Removals:
    """Run directories removed on a daemon thread of their own, one at a time (:meth:`RunFolders.remove_soon`)."""

    def __init__(self) -> None:
        self._lock = ForkSafeLock()
        self._queue: queue.SimpleQueue[tuple[RunFolders, Path]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        after_fork_in_child(self._forked)

    def put(self, folders: RunFolders, run: Path) -> bool:
        """Queue ``run``'s removal; False (nothing queued) when :data:`MAX_WAITING` already wait."""
        with self._lock:
            if self._queue.qsize() >= MAX_WAITING:
                return False
            self._queue.put((folders, run))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, args=(self._queue,), daemon=True,
                                                name="nanohubmcp-run-removals")
                self._thread.start()
        return True

    @staticmethod
    def _work(waiting: queue.SimpleQueue[tuple[RunFolders, Path]]) -> None:
        while True:
            folders, run = waiting.get()
            try:
                folders.remove(run)
            except Exception:  # (remove ignores the files' errors: the scan's own would be a bug)
                _log.warning("removing the run directory %s failed", run, exc_info=True)

    def _forked(self) -> None:  # the thread is not in a forked child, and its parent's runs are not the child's
        self._queue = queue.SimpleQueue()
        self._thread = None


_REMOVALS = _Removals()


def host_name() -> str:
    """This host's name as the run folders' names hold it: lower case, each character other than a letter, a
    digit, ``.`` or ``-`` written ``_``, at most 64 characters (``localhost`` when the system has none)."""
    name = re.sub(r"[^a-z0-9.-]", "_", socket.gethostname().lower())[:64]
    return name or "localhost"


def _remove(pid: int, parent: Path, lock: IO[bytes], first: Callable[[], object] | None, mark: str,
            begun: int | None) -> None:
    if os.getpid() == pid:  # not in a forked child that runs the handlers it inherited
        if first is not None:
            first()
        stop_marked(mark, parent, since=begun)  # the next sweep could no longer find them by this folder
        shutil.rmtree(parent, ignore_errors=True)
        lock.close()


def _abandoned(parent: Path, now: float) -> bool:
    """Whether nothing in ``parent`` — it, its entries and its directories' entries — was modified in the last
    :data:`ABANDONED_AFTER_DAYS` days (not when more than :data:`AGE_SCAN_LIMIT` entries, or one cannot be read)."""
    since = now - ABANDONED_AFTER_DAYS * 86_400
    seen = 0
    try:
        if parent.lstat().st_mtime > since:
            return False
        level = [parent]
        for depth in range(2):
            below = []
            for folder in level:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        facts = entry.stat(follow_symlinks=False)
                        if seen > AGE_SCAN_LIMIT or facts.st_mtime > since:
                            return False
                        if depth == 0 and stat.S_ISDIR(facts.st_mode):
                            below.append(Path(entry.path))
            level = below
    except OSError:
        return False
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (PermissionError): running
        return True
    return True


_SYSTEM_FLOCK: Flock | None
try:
    import fcntl
except ImportError:  # not POSIX: no lock is taken
    _SYSTEM_FLOCK, _EXCLUSIVE_NOW = None, 0
else:
    _SYSTEM_FLOCK, _EXCLUSIVE_NOW = fcntl.flock, fcntl.LOCK_EX | fcntl.LOCK_NB
