"""Where job records live: in memory (gone with the process) or in one SQLite file (kept); :func:`open_backend` picks.

Both back ends take the same calls (:class:`~.backend.JobBackend`, with the bounds checked as every back end
checks them); :class:`MemoryBackend` is here, :class:`~.sqlite_store.SQLiteBackend` in :mod:`.sqlite_store`, and
a shared Redis's in ``nanohubmcp.state.redis_jobs``. ``JobBackend`` and ``SQLiteBackend`` are importable from
here too.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .backend import Guess, JobBackend, KeptData, Untold, check_limits, limit_message
from .runs import RunnerLocks
from .sqlite_store import SQLiteBackend

if TYPE_CHECKING:
    from ...state.url import StateURL
    from .runs import Runs

__all__ = ["JobBackend", "MemoryBackend", "SQLiteBackend", "open_backend"]

log = logging.getLogger("nanohubmcp.jobs")

TERMINAL = ("completed", "failed", "cancelled")


class MemoryBackend(Untold):
    """Records in a dict: today's behaviour, nothing written to disk (``job_store="memory"``)."""

    persistent = False

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        with self._lock:
            check_limits(len(self._rows), sum(1 for r in self._rows.values() if r["owner_key"] == record["owner_key"]),
                          max_total, max_per_owner)
            self._rows[record["id"]] = dict(record)

    def update(self, job_id: str, fields: dict[str, Any]) -> None:
        with self._lock:
            row = self._rows.get(job_id)
            if row is not None:
                row.update(fields)

    def end(self, job_id: str, fields: dict[str, Any], guess: Guess | None = None) -> bool:
        with self._lock:
            row = self._rows.get(job_id)
            if row is None or (row["status"] in TERMINAL and not _guessed(row, guess)):
                return False
            row.update(fields)
            return True

    def changed(self, job_id: str, fields: dict[str, Any]) -> bool:
        return self.end(job_id, fields)  # (the same rule: nothing replaces a stored end)

    def keep_data(self, job_id: str, blocks: KeptData | None, replacing: KeptData | None) -> KeptData | None:
        with self._lock:
            row = self._rows.get(job_id)
            if row is None:
                return None
            if row.get("kept_data") == replacing:
                row["kept_data"] = blocks
            held = row.get("kept_data")
            return list(held) if held is not None else None

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None,
                 updated: float) -> None:
        with self._lock:
            row = self._rows.get(job_id)
            if row is not None:
                row.update(progress=progress, progress_total=total, progress_message=message)
                if row.get("finished_at") is None:
                    row["updated"] = updated
                row["progress_updates"] = row.get("progress_updates", 0) + 1

    def load(self, job_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._rows.get(job_id)
            return dict(row) if row is not None else None

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        return self.load(job_id)

    def newest(self, limit: int) -> list[str]:
        with self._lock:
            found = sorted(((r["created"], r["id"]) for r in self._rows.values()), reverse=True)
        return [job_id for _, job_id in found[:limit]]

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        with self._lock:
            found = sorted((r["created"], r["id"]) for r in self._rows.values()
                           if r["owner_key"] == owner_key and r["created"] >= since)
        return [(job_id, created) for created, job_id in found[start:start + count]]

    def summaries(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, Any]]:
        with self._lock:
            rows = [self._rows.get(job_id) for job_id in ids]
            return [{name: row.get(name) for name in names} for row in rows if row is not None]

    def unfinished(self) -> list[dict[str, Any]]:
        return []  # nothing survives a restart here

    def purge(self, now: float) -> list[str]:
        with self._lock:
            gone = [k for k, r in self._rows.items()
                    if r["finished_at"] is not None and now - r["finished_at"] > r["ttl"]]
            for key in gone:
                del self._rows[key]
        return gone

    def earliest_expiry(self) -> float | None:
        with self._lock:
            return min((r["finished_at"] + r["ttl"] for r in self._rows.values() if r["finished_at"] is not None),
                       default=None)

    def session_gone(self, key: str) -> bool:
        return False  # sessions are this process's: it tells the job store (JobStore.session_ended)

    def close(self) -> None:
        pass


def _guessed(row: dict[str, Any], guess: Guess | None) -> bool:
    """Whether ``row`` holds the end ``guess`` names (see :meth:`JobBackend.end`)."""
    return guess is not None and row["status"] == "failed" and (row.get("runner"), row.get("status_message")) == guess


def open_backend(kind: str, shared: StateURL | None, name: str, directory: str, runs: Runs,
                 on_cancel: Callable[[str | None], None], on_end: Callable[[str | None], None],
                 on_change: Callable[[str | None], None], on_answer: Callable[[str | None], None], *,
                 secret: str | bytes | None = None) -> JobBackend:
    """The back end a job store keeps its records in, with this process's runner lock claimed.

    ``kind`` "memory": :class:`MemoryBackend`. Else a shared state URL (Redis): the records live
    there, for every process of the server named ``name``, ``on_cancel(job_id)`` hears of the
    cancels other processes store (None: look at every live job), ``on_end(job_id)`` of the ends
    of jobs this process waits for (None: every wait looks again), ``on_change(job_id)`` of the
    changes of jobs it follows (None: every follower looks again) and ``on_answer(job_id)`` of the
    answers other processes received for its tasks (None: every task that waits looks); ``secret``: the key of the
    digest of principals' subjects its records hold instead (None: the store's). Else the SQLite file in
    ``directory``; a directory that cannot be used (unwritable, not a directory, a broken file)
    gives a :class:`MemoryBackend` instead, with a warning saying how to fix it.
    """
    if kind == "memory":
        return MemoryBackend()
    if shared is not None and shared.shared:
        from ...state.redis_jobs import RedisJobBackend
        from ...state.redis_runners import RedisRunners

        backend = RedisJobBackend(shared, name, limit_message, secret=secret)
        runs.claim(RedisRunners(shared, name))
        backend.watch(on_cancel, on_end, on_change, on_answer)
        return backend
    try:
        kept = SQLiteBackend(directory)
        runs.claim(RunnerLocks(directory))
    except (OSError, sqlite3.Error) as exc:  # unwritable, not a directory, a broken file...
        log.warning("cannot keep jobs in %s (%s): they are kept in memory and lost when the server "
                    "stops; set state_dir= (NANOHUBMCP_STATE_DIR) to a writable directory", directory, exc)
        return MemoryBackend()
    return kept
