"""Why a kept result's link no longer reads when it was dropped to make room: the evictions a store made,
remembered (the last :data:`EVICTED_REMEMBERED`) and, for a result kept in the results folder, left there as
a note (:data:`.folder.EVICTED_SUFFIX`, until the link would have expired) from which the other processes
sharing the folder say so too. The message names the bound that evicted it (:meth:`Eviction.reason`). Which
entry goes, and when, is :mod:`.index`'s.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from .folder import EVICTED_SUFFIX, read_note, write_json
from .owners import PRINCIPAL_OWNER, SESSION_OWNER

__all__ = ["EVICTED_REMEMBERED", "Eviction", "Evictions"]

EVICTED_REMEMBERED: Final = 4096
"""How many evicted links a store remembers, to say so when one is read."""


@dataclass(frozen=True)
class Eviction:
    """One evicted link: who kept it (an owner key of :mod:`.owners`, or None), whether their own share
    (``per_owner``) or the store's size evicted it, and the job whose result it was (None: a call's own)."""

    owner: str | None
    per_owner: bool
    job: str | None = None

    def reason(self, uri: str, max_bytes: int, max_bytes_per_owner: int) -> str:
        """What a read of ``uri`` answers: the bound that evicted it and what to do."""
        if self.per_owner:
            kept_by = self.owner or ""
            whose = ("session" if kept_by.startswith(SESSION_OWNER) else
                     "principal" if kept_by.startswith(PRINCIPAL_OWNER) else "caller")
            bound = f"at most {max_bytes_per_owner} bytes of large results per {whose}"
        else:
            bound = f"at most {max_bytes} bytes of large results for all callers"
        return (f"Resource evicted: {uri}: the server keeps {bound}, the oldest dropped first to keep newer "
                "ones; read a result's link before asking for more large results, or ask for less data")


class Evictions:
    """The links one store evicted, and the notes of those its peers evicted. Not locked: the store calls it
    holding its own lock."""

    def __init__(self) -> None:
        self._remembered: OrderedDict[str, Eviction] = OrderedDict()

    def add(self, uri: str, eviction: Eviction, expires: float, path: str | None) -> None:
        """Remember that ``uri`` was evicted; ``path``: its file in the results folder (None: it was kept in
        memory), beside which a note is left for the other processes until ``expires`` (a time.time())."""
        self._remembered[uri] = eviction
        while len(self._remembered) > EVICTED_REMEMBERED:
            self._remembered.popitem(last=False)
        if path is not None:
            with contextlib.suppress(OSError):
                write_json(path + EVICTED_SUFFIX, {"uri": uri, "owner": eviction.owner, "job": eviction.job,
                                                    "per_owner": eviction.per_owner, "expires": expires})

    def find(self, uri: str, owner: str | None, path: str | None) -> Eviction | None:
        """The eviction of ``uri`` when it was ``owner``'s (or nobody's), made by this store or, from its
        note beside ``path``, by a process sharing the folder; else None."""
        found = self.of(uri, path)
        if found is None or (found.owner is not None and found.owner != owner):
            return None
        return found

    def of(self, uri: str, path: str | None) -> Eviction | None:
        """The eviction of ``uri``, whoever kept it (:meth:`find`, not checked for an owner), else None."""
        found = self._remembered.get(uri)
        if found is None and path is not None:
            note = read_note(path + EVICTED_SUFFIX)
            if note is not None and note["uri"] == uri:
                job = note.get("job")
                found = Eviction(note.get("owner"), bool(note.get("per_owner")), job if isinstance(job, str) else None)
        return found
