"""The files of a results folder (``<state dir>/results``): a kept result's data file and its ``.meta.json``
(written data first, so a reader never sees meta without data; a text encoded a slice at a time), the
note an eviction leaves for the other processes (:data:`EVICTED_SUFFIX`), and the lock they share
(:class:`FolderLock`). What is kept, for whom and within which bounds is :mod:`.index`'s.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from ..wire.state_dir import private_opener

try:
    import fcntl
except ImportError:  # (not on Windows: each process counts its own)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("nanohubmcp.server.results.store")

NAME: Final = re.compile(r"^[A-Za-z0-9_-]{32}(\.[a-z]{1,8})?\Z")
"""A kept result's file name: the token (24 random bytes, URL-safe base64) and a suffix."""


EVICTED_SUFFIX: Final = ".evicted.json"
"""Beside an evicted result's name: who kept it and which bound evicted it, for the other processes sharing the
folder (removed once the link would have expired)."""

LOCK_NAME: Final = ".lock"
"""The results folder's lock file: held while a result is kept, so the processes sharing the folder count their
bounds over all of them and decide one keep at a time."""

PART_SUFFIX: Final = ".part"
"""The suffix of a kept result's file while it is written (:meth:`.store.ResultStore.keep_parts`)."""

STALE_PART_SECONDS: Final = 3600.0
"""A ``.part`` file not written to for this long is a crashed process's: removed when the folder is opened."""

KEPT_ERRORS: Final = "surrogatepass"
"""How kept text is written as UTF-8 and read back: a lone surrogate (a client's ``"\\ud800"`` a tool
echoed) as the three bytes UTF-8's pattern gives it, so it reads back as itself (strict UTF-8 has no
form for it: keeping such a result failed the call)."""
WRITE_CHARS: Final = 1 << 22
"""Characters of a kept text written at a time (each slice is encoded alone)."""


def write_data(path: str, data: bytes | bytearray | str, meta: dict[str, Any]) -> bool:
    """Write the data file (text as UTF-8, written as it is: not encoded whole first), then its
    ``.meta.json`` (so a reader never sees meta without data); False when it cannot (logged: a full disk),
    nothing of it left."""
    try:
        if isinstance(data, str):
            with open(path, "w", encoding="utf-8", errors=KEPT_ERRORS, newline="", opener=private_opener) as f:
                for start in range(0, len(data), WRITE_CHARS):  # encoded a slice at a time
                    f.write(data[start : start + WRITE_CHARS])
        else:
            with open(path, "wb", opener=private_opener) as f:
                f.write(data)
        write_meta(path, meta)
        return True
    except OSError as exc:  # a full disk: keep it in memory instead
        return unwritten(path, exc)


def finish(path: str, meta: dict[str, Any]) -> bool:
    """Give the data written to ``path + PART_SUFFIX`` its name, then write its ``.meta.json``; False when it
    cannot (logged), nothing of it left."""
    try:
        os.replace(path + PART_SUFFIX, path)
        write_meta(path, meta)
        return True
    except OSError as exc:
        return unwritten(path, exc)


def unwritten(path: str, exc: OSError) -> bool:
    """Log why the result of ``path`` cannot be written and remove what was (else no bound counts it)."""
    log.warning("cannot write the large result %s: %s", path, exc)
    for name in (path + PART_SUFFIX, path, path + ".meta.json.tmp"):
        with contextlib.suppress(OSError):
            os.remove(name)
    return False


def write_meta(path: str, meta: dict[str, Any]) -> None:
    write_json(path + ".meta.json", meta)


def write_json(target: str, value: dict[str, Any]) -> None:
    temporary = target + ".tmp"
    with open(temporary, "w", encoding="utf-8", opener=private_opener) as f:
        json.dump(value, f)
    os.replace(temporary, target)


COUNT_BYTES: Final = 20
"""The change count's width at the start of the lock file (a decimal number, right-aligned)."""


class FolderLock:
    """The results folder's lock (``fcntl.flock`` on its :data:`LOCK_NAME` file), shared by the processes keeping
    results in one folder, with a count of the times it was held: :meth:`holding` brings a store's index up to
    date only when another process held it since this one last did."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._fd: int | None = None
        self._pid = 0
        """The process that opened :attr:`_fd`: a process forked from it opens its own (a ``flock`` belongs to
        the open file, which a fork shares: parent and child would both hold it at once)."""
        self._seen = b""
        """The folder's change count (in its lock file) this process last set, or b"": take in on the next hold."""
        self._turn = threading.Lock()
        """Held by the thread of this process that holds (or waits for) the lock: a ``flock`` on one open file
        does not exclude the threads of its process from each other."""
        self._missed = 0
        """Large results kept in this process's memory since the lock was last had: only the first of them is
        logged (:meth:`_not_had`), and their number once the lock is had again."""

    @contextlib.contextmanager
    def holding(self, take_in: Callable[[], None], wait: float = 0.0, *, last: bool = True) -> Iterator[bool]:
        """Hold the lock, calling ``take_in()`` first when another process held it since this one last did, and
        yield True; yield False, not holding it (logged), when another process, or another thread of this one,
        held it for ``wait`` seconds (0: not waited for at all, as on an event loop, which must go on answering
        every other call) — the caller then keeps its result to itself. ``last=False``: the caller asks again
        off the event loop when it is not had (nothing logged). A folder that cannot be locked is counted by
        this process alone (logged; True), never refused.

        A free lock is taken with one ``flock`` call; a held one is asked for again after pauses growing
        from 1 ms to :data:`LOCK_PAUSE_SECONDS` (never waiting in the kernel: the wait stays bounded). The
        count is raised as the lock is taken, before anything changes: a process killed while holding it
        (the kernel lets go of the lock) leaves a count the next holder of every other process takes in."""
        if fcntl is None:  # (not on Windows: each process counts its own)
            yield True
            return
        turn, left = self._turn, wait
        if not turn.acquire(blocking=False):  # (a free turn, as a free lock, costs no clock reading)
            started = time.monotonic()
            if wait <= 0 or not turn.acquire(timeout=wait):
                if last:
                    self._not_had("another call of this process holds or waits for the lock of that folder", wait)
                yield False
                return
            left = max(0.0, wait - (time.monotonic() - started))
        try:
            try:
                if self._fd is None or self._pid != os.getpid():
                    self._fd = os.open(os.path.join(self.folder, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                                       0o600)
                    self._pid, self._seen = os.getpid(), b""
                had = take_lock(self._fd, left)
            except OSError as exc:  # (the folder went, or cannot be written: the keep falls back to memory)
                log.warning("large results are counted by this process alone: cannot lock %s (%s)", self.folder, exc)
                yield True
                return
            if not had:
                if last:
                    self._not_had("another process holds the lock of that folder", wait)
                yield False
                return
            fd, seen, self._seen = self._fd, self._seen, b""  # (b"": the next hold takes in, unless this one does)
            if self._missed:
                self._had_again()
            try:
                try:
                    found = os.pread(fd, COUNT_BYTES, 0)
                    count = next_count(found)  # (the count read, not this process's own, plus one)
                    os.pwrite(fd, count, 0)
                    if found != seen:  # another process held it since this one last did
                        take_in()
                    self._seen = count
                except OSError as exc:
                    log.warning("large results are counted by this process alone: cannot read %s (%s)",
                                self.folder, exc)
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            turn.release()

    def _not_had(self, why: str, wait: float) -> None:
        """Log the first large result kept in memory while the lock is not had (a stopped peer would make
        every large result a line); the others are counted, and said once the lock is had again."""
        self._missed += 1  # (threads may count one less at once: the count is told, never relied on)
        if self._missed > 1:
            return
        waited = f"waited for {wait:g} s" if wait > 0 else "not waited for on the event loop"
        log.warning("a large result is kept in this process's memory, not in %s: %s (%s); the other processes "
                    "sharing it cannot read it (the next ones until the lock is had are not logged)",
                    self.folder, why, waited)

    def _had_again(self) -> None:
        missed, self._missed = self._missed, 0
        log.warning("the lock of %s is had again: %d large result%s kept in this process's memory meanwhile",
                    self.folder, missed, "" if missed == 1 else "s")


LOCK_PAUSE_SECONDS: Final = 0.05
"""The longest pause between two attempts at a lock another process holds (:func:`take_lock`)."""


def take_lock(fd: int, wait: float) -> bool:
    """Take the ``flock`` of ``fd`` (exclusive): at once when it is free, else asked for again after growing
    pauses for up to ``wait`` seconds; False when another process held it all that time.

    Raises:
        OSError: it cannot be locked (other than held elsewhere).
    """
    attempt = fcntl.LOCK_EX | fcntl.LOCK_NB
    try:
        fcntl.flock(fd, attempt)
        return True
    except BlockingIOError:  # held by another process (the one call a free lock costs was made)
        pass
    deadline, pause = time.monotonic() + wait, 0.001
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(pause, left))
        pause = min(pause * 2, LOCK_PAUSE_SECONDS)
        try:
            fcntl.flock(fd, attempt)
            return True
        except BlockingIOError:
            continue
    return False


def next_count(found: bytes) -> bytes:
    """The change count after ``found`` (what the lock file held: a count, nothing, or something else)."""
    try:
        count = int(found or b"0") + 1
    except ValueError:
        count = 1
    return str(count).encode().rjust(COUNT_BYTES)


def kept_names(folder: str) -> set[str]:
    """The names of the results kept in ``folder`` (their data file and ``.meta.json`` both there), removing
    what a process killed in the middle of a change left: a data file without its ``.meta.json`` (killed while
    writing it), a ``.meta.json`` without its data file (killed between removing the two), a half-written
    ``.tmp``. Only with the folder's lock held (:class:`FolderLock`): results are kept holding it, so a data
    file without its ``.meta.json`` is then no other process's keep under way (a result removed as it
    expires, without the lock, loses its data file first: its ``.meta.json`` removed here too is no harm).

    Raises:
        OSError: the folder cannot be listed.
    """
    names = set(os.listdir(folder))
    metas = {name[: -len(".meta.json")] for name in names if name.endswith(".meta.json")}
    data = {name for name in names if NAME.match(name) and not name.endswith(PART_SUFFIX)}
    left = {base + ".meta.json" for base in metas - data} | (data - metas)
    left |= {name for name in names if name.endswith(".json.tmp")}
    for name in left:
        with contextlib.suppress(OSError):  # (removed meanwhile by another process)
            os.remove(os.path.join(folder, name))
    return metas & data


def read_note(path: str) -> dict[str, Any] | None:
    """An evicted result's note (:data:`EVICTED_SUFFIX`), or None (none, unreadable, or removed now: its link
    would have expired)."""
    try:
        with open(path, encoding="utf-8") as f:
            note = json.load(f)
        if not isinstance(note, dict) or not isinstance(note.get("uri"), str):
            return None
        if note["expires"] <= time.time():
            os.remove(path)
            return None
        return note
    except (OSError, ValueError, KeyError, TypeError):
        return None


def read_meta(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        if not isinstance(meta, dict) or not isinstance(meta.get("uri"), str):
            return None
        if meta["expires"] <= time.time():
            base = path[: -len(".meta.json")]
            for name in (base, path):
                os.remove(name)
            return None
        return meta
    except (OSError, ValueError, KeyError, TypeError):
        return None
