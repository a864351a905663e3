"""Reading a file a run left in its folder: without following a symbolic link, without waiting on a FIFO, bounded.

A program's output names the file (a Rappture run file, a Sim2L output saved to a file), and a program may echo what
a caller sent: the name is checked by the caller of :func:`read_left_file`, which opens only a regular file at that
path (``O_NOFOLLOW | O_NONBLOCK``, then ``fstat``) and reads at most ``limit`` bytes of it.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["LeftFileRefused", "read_left_file"]


class LeftFileRefused(Exception):
    """A file of a run that is not read; :attr:`reason` is ``"link"`` (a symbolic link), ``"kind"`` (not a regular
    file: a FIFO, a folder, a device) or ``"size"`` (over the limit)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_left_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises:
        FileNotFoundError: there is no file at ``path``.
        LeftFileRefused: a symbolic link, not a regular file, or over ``limit`` bytes (:attr:`~LeftFileRefused.reason`).
        OSError: it cannot be opened otherwise (permissions).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LeftFileRefused("link") from None
        raise
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise LeftFileRefused("kind")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise LeftFileRefused("size")
    return data
