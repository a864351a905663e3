"""Saying, once per directory, that files cannot be locked there: shared by the run folders (``flock``,
:mod:`.run_folders`) and the Sim2L runs' claims (``lockf``, :mod:`.sim2l.claims`).

Where a lock fails with an error other than "held" (``ENOLCK`` on an NFSv3 home without ``lockd``,
``EOPNOTSUPP`` on some FUSE file systems) each goes on without it, and the user is told, as a warning of the
caller's logger, which lock failed in which directory and what follows from it. Every run there fails the same
way, so each directory is said once per process; the directories remembered are bounded
(:data:`REMEMBERED_FOLDERS`, the oldest forgotten first: one said again after that many others is said again).
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict

from ..server.wire.fork_safe import ForkSafeLock

__all__ = ["REMEMBERED_FOLDERS", "Unlockable"]

REMEMBERED_FOLDERS = 256
"""The most directories one :class:`Unlockable` remembers having said (a process has a handful: the temporary
directory, a results directory and its ``.running``)."""

_guard = ForkSafeLock()  # held while a remembered set is read and changed (briefly; never while logging)


class Unlockable:
    """Says once per directory that ``lock`` cannot be taken there and what follows.

    Args:
        logger: the warning's logger (the caller's module's: what a user filters on).
        lock: the lock that failed, as the message names it (``flock``, ``lockf``).
        consequence: what follows, the message's end (e.g. "run folders there are made without a lock, ...").
        limit: the most directories remembered (at least 1).
    """

    def __init__(self, logger: logging.Logger, lock: str, consequence: str, *, limit: int = REMEMBERED_FOLDERS) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        self._logger = logger
        self._lock = lock
        self._consequence = consequence
        self._limit = limit
        self._said: OrderedDict[str, None] = OrderedDict()

    def say(self, folder: str | os.PathLike[str], error: OSError) -> bool:
        """Warn that files cannot be locked in ``folder`` (``error``: the lock's), unless this was said of it
        and it is still remembered; whether it was said now."""
        key = os.fspath(folder)
        with _guard:
            if key in self._said:
                self._said.move_to_end(key)
                return False
            self._said[key] = None
            while len(self._said) > self._limit:
                self._said.popitem(last=False)
        self._logger.warning(
            "nanohubmcp: files cannot be locked in %s (%s: %s): %s",
            key,
            self._lock,
            error.strerror or error,
            self._consequence,
        )
        return True

    def remembered(self) -> int:
        """How many directories are remembered as said (at most the limit)."""
        return len(self._said)
