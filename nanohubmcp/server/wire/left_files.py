"""Opening a file a program run or a batch job left behind: never through a symbolic link, only a regular file,
never waiting on a FIFO, sized before it is read, bounded.

A run's output names the file (a Rappture run file, a Sim2L output saved to a file, a stored run's file a client
reads, the files a batch job returns), and a program may echo what a caller sent. Whoever names the path checks
where it leads; :func:`open_left_file` opens it (``O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC``), keeps it only when
``fstat`` finds a regular file, and refuses it past a limit before reading a byte. What is read is at most the size
``fstat`` saw then (a file still growing is read as it was when opened).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO, Literal

__all__ = ["LeftFile", "LeftFileRefused", "open_left_file", "read_left_file"]

Refusal = Literal["link", "kind", "size"]


class LeftFileRefused(Exception):
    """A file left by a run that is not read.

    Attributes:
        reason: ``"link"`` (a symbolic link), ``"kind"`` (not a regular file: a FIFO, a folder, a device) or
            ``"size"`` (over the limit).
        size: its size in bytes (``fstat``) when ``reason`` is ``"size"``, else None.
    """

    def __init__(self, reason: Refusal, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason: Refusal = reason
        self.size = size


class LeftFile:
    """A regular file opened by :func:`open_left_file`; close it (or use it as a context manager).

    Attributes:
        stream: the open file (binary, read-only).
        size: its size in bytes when it was opened (``fstat``).
    """

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self.stream = stream
        self.size = size

    def read(self) -> bytes:
        """Its bytes, at most :attr:`size` of them."""
        return self.stream.read(self.size)

    def close(self) -> None:
        self.stream.close()

    def __enter__(self) -> LeftFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_left_file(path: str | os.PathLike[str], limit: int | None = None) -> LeftFile:
    """The regular file ``path``, open and sized, at most ``limit`` bytes (None: any size); nothing is read yet.

    Raises:
        FileNotFoundError: there is no file at ``path``.
        LeftFileRefused: a symbolic link, not a regular file, or over ``limit`` bytes (:attr:`LeftFileRefused.reason`;
            the size in :attr:`LeftFileRefused.size`).
        OSError: it cannot be opened otherwise (permissions).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LeftFileRefused("link") from None
        raise
    stream = os.fdopen(fd, "rb")
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise LeftFileRefused("kind")
        if limit is not None and found.st_size > limit:
            raise LeftFileRefused("size", found.st_size)
    except BaseException:
        stream.close()
        raise
    return LeftFile(stream, found.st_size)


def read_left_file(path: str | os.PathLike[str], limit: int | None) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_left_file`), at most ``limit`` of them (None: any size).

    Raises:
        FileNotFoundError: there is no file at ``path``.
        LeftFileRefused: a symbolic link, not a regular file, or over ``limit`` bytes (:attr:`LeftFileRefused.reason`).
        OSError: it cannot be opened otherwise (permissions).
    """
    with open_left_file(path, limit) as left:
        return left.read()
