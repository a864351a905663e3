"""Where a Rappture run's working directory goes, and removing what killed processes left.

A process keeps the working directories of its runs in one parent of its own in the temporary
directory, ``nanohubmcp-rappture-<pid>-<random>/``, and holds an exclusive lock on the file
``owner.lock`` in it for its life: the system releases the lock when the process ends, SIGKILL
included. A run removes its own directory when it ends, and the process removes its parent at
exit, after killing the programs still running there (:func:`.running.stop_all`); what a killed
process left, :func:`sweep` removes — after stopping the programs its runs left running there
(:mod:`.orphans`, Linux): a parent of this user whose lock no process holds and whose pid is not
running (either alone could mislead: a lock file not yet locked, a pid seen from another pid
namespace or reused). Nothing else in the temporary directory is touched.

Off POSIX (Windows, where Rappture tools do not run) nothing is swept.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import IO

from .orphans import GROUP_SUFFIX, stop_orphans
from .running import stop_all

__all__ = ["PREFIX", "remove_run_directory", "run_directory", "sweep", "sweep_once"]

PREFIX = "nanohubmcp-rappture-"
"""How the parent of a process's run directories is named: ``PREFIX<pid>-<random>``."""

_PARENT = re.compile(re.escape(PREFIX) + r"(\d+)-[a-z0-9_]{8}")  # tempfile.mkdtemp's random part
_LOCK = "owner.lock"

_made: tuple[int, Path, IO[bytes]] | None = None  # this process's pid, parent and held lock
_making = threading.Lock()
_swept: set[int] = set()  # the processes that swept (a forked child sweeps again: harmless)


def run_directory(tool: str) -> Path:
    """A new, empty working directory for one run of ``tool`` (``rappture-<tool>-<random>``) in this
    process's parent; the caller removes it when the run ends."""
    return Path(tempfile.mkdtemp(prefix=f"rappture-{tool[:40]}-", dir=_parent()))


def remove_run_directory(run: Path) -> None:
    """Remove the working directory ``run`` of an ended run, and the note of its process group."""
    shutil.rmtree(run, ignore_errors=True)
    (run.parent / (run.name + GROUP_SUFFIX)).unlink(missing_ok=True)


def _parent() -> Path:
    global _made
    with _making:
        if _made is not None and _made[0] == os.getpid() and _made[1].is_dir():
            return _made[1]
        pid = os.getpid()  # a forked child makes its own: its parent's is removed at the parent's exit
        parent = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{pid}-"))
        lock = open(parent / _LOCK, "wb")  # noqa: SIM115 (held open for the life of the process)
        _try_lock(lock)
        _made = (pid, parent, lock)
        atexit.register(_remove, pid, parent, lock)
        return parent


def _remove(pid: int, parent: Path, lock: IO[bytes]) -> None:
    if os.getpid() == pid:  # not in a forked child that runs the handlers it inherited
        stop_all()  # first: a program still running must not outlive the folder the next sweep finds it by
        shutil.rmtree(parent, ignore_errors=True)
        lock.close()


def sweep(directory: str | None = None) -> list[Path]:
    """Remove the run directories of processes that ended without removing them (killed), in
    ``directory`` (default: the temporary directory), first killing the programs still running in
    them (:func:`.orphans.stop_orphans`); returns the parents removed."""
    if os.name != "posix":
        return []
    base = Path(directory or tempfile.gettempdir())
    try:
        with os.scandir(base) as entries:
            found = [(base / m[0], int(m[1])) for e in entries if (m := _PARENT.fullmatch(e.name))]
    except OSError:
        return []
    removed = []
    for parent, pid in found:
        if _stale(parent, pid):
            stop_orphans(parent)
            shutil.rmtree(parent, ignore_errors=True)
            removed.append(parent)
    return removed


def sweep_once() -> None:
    """:func:`sweep` the temporary directory, the first time this process asks (a server registering
    its Rappture tools: its start)."""
    if os.getpid() not in _swept:
        _swept.add(os.getpid())
        sweep()


def _stale(parent: Path, pid: int) -> bool:
    try:
        facts = parent.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(facts.st_mode) or facts.st_uid != os.getuid():  # a link, a file, another user's
        return False
    if _made is not None and _made[1] == parent:
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

