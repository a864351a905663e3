"""A text kept a part at a time (an array's JSON, a table's CSV: :meth:`.store.ResultStore.keep_parts`),
written as each part is made and refused as soon as it passes the store's size, so it is never held whole
while it is written, nor at all when it is refused: into the ``.part`` file that becomes its kept file
(:func:`to_part_file`, :func:`read_part` when it must be held in memory after all), or, without a results
folder, into an unnamed temporary file read back once complete (:func:`to_memory`: the text's one copy).
Which entry it becomes, and under which lock, is :mod:`.store`'s.

A ``.part`` file still being written, or not yet named as its kept file, when the process exits (a server's stop
cut the call keeping it: its client was told the call did not complete) is removed at the exit (an ``atexit``
handler, which a served process's end runs too), not left in the results folder until the folder's stale-part sweep.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
from collections.abc import Callable, Iterable, Iterator

from ..wire.fork_safe import ForkSafeLock, after_fork_in_child
from ..wire.state_dir import private_opener
from .folder import KEPT_ERRORS, PART_SUFFIX
from .kept_size import TooLargeToKeep

__all__ = ["read_part", "spool", "to_memory", "to_part_file", "unfinished"]

_WRITING: dict[str, int] = {}
"""The ``.part`` files being written or named as kept files now (:func:`unfinished`: how many blocks hold each),
removed if the process exits first: this process's own (a forked child starts with none: the parent's writes are the
parent's to finish or remove)."""
_WRITING_LOCK = ForkSafeLock()
after_fork_in_child(_WRITING.clear)


@contextlib.contextmanager
def unfinished(path: str) -> Iterator[str]:
    """``path + PART_SUFFIX`` (yielded) removed at the process's exit if it exits while the block runs: the file's
    writing (:func:`to_part_file`) and its naming as the kept file, which may wait for the results folder's lock
    (:meth:`.store.ResultStore.keep_parts`). Blocks nest."""
    part = path + PART_SUFFIX
    with _WRITING_LOCK:
        _WRITING[part] = _WRITING.get(part, 0) + 1
    try:
        yield part
    finally:
        with _WRITING_LOCK:
            left = _WRITING.pop(part, 1) - 1
            if left > 0:
                _WRITING[part] = left


def spool(write: Callable[[bytes], object], parts: Iterable[str], limit: int) -> int:
    """``write`` each of ``parts`` as UTF-8 and return their size in bytes.

    Raises:
        TooLargeToKeep: the parts are larger than ``limit`` bytes (the part that passes it is not written).
    """
    size = 0
    for part in parts:
        data = part.encode("utf-8", KEPT_ERRORS)
        size += len(data)
        if size > limit:
            raise TooLargeToKeep(size, limit, at_least=True)
        write(data)
    return size


def to_part_file(path: str, parts: Callable[[], Iterable[str]], limit: int) -> int:
    """Write the text ``parts()`` makes to ``path + PART_SUFFIX`` and return its size in bytes; nothing of
    it is left when it fails.

    Raises:
        TooLargeToKeep: as :func:`spool`.
        OSError: it cannot be written (a full disk).
    """
    with unfinished(path) as part:
        try:
            with open(part, "wb", opener=private_opener) as f:
                return spool(f.write, parts(), limit)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(part)
            raise


@atexit.register
def _remove_unfinished() -> None:
    """At the process's exit: remove each ``.part`` file still being written or not yet named as its kept file (its
    call was cut off by the stop; the thread keeping it is not waited for), so no partial result stays in the
    results folder."""
    with _WRITING_LOCK:
        parts = list(_WRITING)
        _WRITING.clear()
    for part in parts:
        with contextlib.suppress(OSError):
            os.remove(part)


def to_memory(parts: Callable[[], Iterable[str]], limit: int) -> tuple[bytearray, int]:
    """The text ``parts()`` makes and its size, written to an unnamed temporary file a part at a time and
    read back once complete (held once, never while it is made).

    Raises:
        TooLargeToKeep: as :func:`spool`.
        OSError: the temporary file cannot be written or read back.
    """
    import tempfile  # (only for such a result: it loads shutil and random)

    with tempfile.TemporaryFile() as f:
        size = spool(f.write, parts(), limit)
        f.seek(0)
        return read_back(f, size), size


def read_part(path: str, size: int) -> bytearray:
    """The ``size`` bytes written to ``path + PART_SUFFIX``, which is removed (read or not).

    Raises:
        OSError: fewer could be read.
    """
    try:
        with open(path + PART_SUFFIX, "rb") as f:
            return read_back(f, size)
    finally:
        with contextlib.suppress(OSError):
            os.remove(path + PART_SUFFIX)


def read_back(f: io.BufferedIOBase, size: int) -> bytearray:
    """The ``size`` bytes of ``f`` from where it is.

    Raises:
        OSError: fewer could be read.
    """
    kept = bytearray(size)
    if f.readinto(kept) != size:
        raise OSError(f"read back fewer than the {size} bytes written")
    return kept
