"""Where a source's runs get their working directories, and removing what killed processes left there:
shared by the Rappture source (in the temporary directory) and the Sim2L source (in ``<runs>/.running``).

A process keeps the working directories of its runs in one parent of its own in a base directory,
``<prefix><pid>-<random>/``, and holds an exclusive lock on the file ``owner.lock`` in it for its life: the
system releases the lock when the process ends, SIGKILL included. A run removes its own directory when it
ends (or, a Sim2L's, is moved into its store), and the process removes its parent at exit. What a killed
process left (or a job's process of the ``processes`` executor, which runs no exit handler: its server sweeps
once that process ended, :mod:`nanohubmcp.server.executors.processes`), :meth:`RunFolders.sweep` removes —
after stopping the programs its runs left running there
(:mod:`.orphans`, Linux): a parent of this user whose lock no process holds and whose pid is not running
(either alone could mislead: a lock file not yet locked, a pid seen from another pid namespace or reused).
Nothing else in the base directory is touched.

Off POSIX (Windows) nothing is swept.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from .orphans import GROUP_SUFFIX, record_group, stop_orphans

__all__ = ["GROUP_SUFFIX", "RunFolders", "record_group"]

_LOCK = "owner.lock"

_making = threading.Lock()  # held while a parent is looked up or made (every source's: they are made rarely)


def _forked() -> None:  # a child forked while another thread held it (a processes job's) would wait for ever
    global _making
    _making = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


class RunFolders:
    """The run directories of one source, in this process's parent of each base directory it is asked for.

    Args:
        prefix: how a process's parent is named, ``<prefix><pid>-<random>`` (e.g. ``nanohubmcp-rappture-``).
        mark: the environment variable a run's program is started with, naming its run directory
            (resolved): how :meth:`sweep` tells a program whose group was never noted (:mod:`.orphans`).
        at_exit: called at this process's exit before its parents are removed (stopping the programs
            still running there, which the next sweep could no longer find).
    """

    def __init__(self, prefix: str, mark: str, *, at_exit: Callable[[], object] | None = None) -> None:
        self.prefix = prefix
        self.mark = mark
        self._at_exit = at_exit
        self._pattern = re.compile(re.escape(prefix) + r"(\d+)-[a-z0-9_]{8}")  # tempfile.mkdtemp's random part
        self._made: dict[Path, tuple[int, Path, IO[bytes]]] = {}  # base -> this process's pid, parent, held lock
        self._swept: set[tuple[int, Path]] = set()  # (process, base) swept (a forked child sweeps again: harmless)
        self._cleanups: dict[Path, Callable[[], object]] = {}

    def make(self, base: str | os.PathLike[str], name: str = "") -> Path:
        """A new, empty working directory (mode ``0o700``, named ``<name><random>``) for one run, in this
        process's parent in ``base`` (made, with ``base``, when missing); the caller removes it (or moves it
        away, then :meth:`forget`) when the run ends.

        Raises:
            OSError: it cannot be made.
        """
        return Path(tempfile.mkdtemp(prefix=name, dir=self._parent(Path(base))))

    def remove(self, run: Path) -> None:
        """Remove the working directory ``run`` of an ended run, and the note of its process group."""
        shutil.rmtree(run, ignore_errors=True)
        self.forget(run)

    @staticmethod
    def forget(run: Path) -> None:
        """Remove the note of the process group of the ended run whose directory was ``run`` (moved away)."""
        (run.parent / (run.name + GROUP_SUFFIX)).unlink(missing_ok=True)

    def _parent(self, base: Path) -> Path:
        with _making:
            made = self._made.get(base)
            if made is not None and made[0] == os.getpid() and made[1].is_dir():
                return made[1]
            pid = os.getpid()  # a forked child makes its own: its parent's is removed at the parent's exit
            base.mkdir(parents=True, exist_ok=True, mode=0o700)
            parent = Path(tempfile.mkdtemp(prefix=f"{self.prefix}{pid}-", dir=base))
            lock = open(os.open(parent / _LOCK, os.O_WRONLY | os.O_CREAT, 0o600), "wb")  # noqa: SIM115 (held for life)
            _try_lock(lock)
            self._made[base] = (pid, parent, lock)
            atexit.register(_remove, pid, parent, lock, self._at_exit)
            return parent

    def sweep(self, base: str | os.PathLike[str]) -> list[Path]:
        """Remove the run directories in ``base`` of processes that ended without removing them (killed),
        first killing the programs still running in them (:func:`.orphans.stop_orphans`); returns the
        parents removed."""
        if os.name != "posix":
            return []
        base = Path(base)
        try:
            with os.scandir(base) as entries:
                found = [(base / m[0], int(m[1])) for e in entries if (m := self._pattern.fullmatch(e.name))]
        except OSError:
            return []
        removed = []
        for parent, pid in found:
            if self._stale(parent, pid):
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

    def _stale(self, parent: Path, pid: int) -> bool:
        try:
            facts = parent.lstat()
        except OSError:
            return False
        if not stat.S_ISDIR(facts.st_mode) or facts.st_uid != os.getuid():  # a link, a file, another user's
            return False
        if any(made[1] == parent for made in self._made.values()):
            return False
        if pid != os.getpid() and _running(pid):  # this pid's: an earlier process's that had it (the lock decides)
            return False
        try:
            handle = os.open(parent / _LOCK, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return True  # killed before it made its lock (and its pid is not running)
        except OSError:
            return False
        with open(handle, "rb") as lock:
            return _try_lock(lock)  # released when closed


def _remove(pid: int, parent: Path, lock: IO[bytes], first: Callable[[], object] | None) -> None:
    if os.getpid() == pid:  # not in a forked child that runs the handlers it inherited
        if first is not None:
            first()
        shutil.rmtree(parent, ignore_errors=True)
        lock.close()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (PermissionError): running
        return True
    return True


def _try_lock(handle: IO[bytes]) -> bool:
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
