"""Where job records live: in memory (gone with the process) or in one SQLite file (kept).

A record is a flat dict of the columns in :data:`~.sqlite_file.COLUMNS`; ``arguments``, ``result``,
``error`` and ``meta`` hold JSON values. Both back ends take the same calls (:class:`JobBackend`), are
safe from any thread, and enforce the store's bounds in the same transaction that adds a job, so two
servers sharing a file cannot both slip past a limit. :func:`open_backend` picks the back end of a job
store's settings (a shared Redis: ``nanohubmcp.state.redis_jobs``).

The SQLite file (its table, the columns' encoding, an earlier version's file brought up to date, WAL:
:mod:`.sqlite_file`): every write is one short transaction; writers in one process are serialised by
a lock, writers in several processes by ``BEGIN IMMEDIATE`` and SQLite's busy timeout. A progress
update is an ``UPDATE ... SET progress_updates = progress_updates + 1``, so concurrent updates are
counted, never lost.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import JobLimitReached
from . import DB_FILE
from .runs import RunnerLocks
from .sqlite_file import (
    COLUMNS,
    RUNNER_INDEX,
    SCHEMA,
    TERMINAL_SQL,
    bring_up_to_date,
    close_when_collected,
    decode,
    encode,
    open_database,
    real,
    transaction,
)

if TYPE_CHECKING:
    from ...state.url import StateURL
    from .runs import Runs

log = logging.getLogger("nanohubmcp.jobs")

IDS_PER_QUERY = 500
"""Ids named in one query (SQLite's bound on parameters is 999 in older builds)."""
TERMINAL = ("completed", "failed", "cancelled")


def limit_message(scope: str, limit: int, option: str) -> str:
    """The refusal text of a full store."""
    return (f"Too many jobs {scope}: the server keeps at most {limit} (option {option}). Wait until "
            "earlier jobs finish and expire, or ask the server's operator to raise the limit.")


KeptData = list[dict[str, Any]]
"""A job's ``kept_data``: the blocks its MCP answers give for its data over ``max_inline_bytes``
(:mod:`~..executors.polled_data`)."""

Guess = tuple[str, str]
"""``(runner, status message)`` of the one stored end a job's own end may replace (``JobBackend.end``)."""


class JobBackend(Protocol):
    """What the job store needs from a place to keep records (see :class:`SQLiteBackend`)."""

    persistent: bool
    tells_ends: bool
    """True when the back end tells this process of the ends other processes store for jobs it
    waits for (:meth:`awaited`; Redis), so a wait reads the record seldom (:mod:`.far_ends`)."""

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        """Add a record unless a bound is reached (raises :class:`JobLimitReached`)."""

    def update(self, job_id: str, fields: dict[str, Any]) -> None:
        """Set ``fields`` of one record."""

    def end(self, job_id: str, fields: dict[str, Any], guess: Guess | None = None) -> bool:
        """Store a job's end (``fields`` with a terminal ``status``) unless its record already holds
        one: a cancel stored by another process is never replaced by the function's own end. The
        one end replaced is ``guess`` (a runner and a message): a ``failed`` end with that message
        that another process stored for a job of that runner when the runner looked dead (its
        heartbeat lapsed while the shared store was away), which the runner's real end replaces.
        True when written."""

    def changed(self, job_id: str, fields: dict[str, Any]) -> bool:
        """Set ``fields`` (a running job's ``status``, ``input_requests``, ``updated``) unless the record
        holds an end already (a cancel another process stored wins); a back end that
        :attr:`tells_ends` also tells the processes following the job (:meth:`awaited` with
        ``follow``). True when written."""

    def answer(self, job_id: str, answers: dict[str, Any]) -> None:
        """Keep ``answers`` to a task's input requests, received by this process, for the process
        running the task, and tell it (a back end that :attr:`tells_ends`; the others carry none:
        the job store asks only one that does)."""

    def take_answers(self, job_id: str) -> list[dict[str, Any]]:
        """The answers other processes kept for the task ``job_id`` (:meth:`answer`), taken."""

    def keep_data(self, job_id: str, blocks: KeptData, replacing: KeptData | None) -> KeptData | None:
        """Store ``blocks`` as the job's ``kept_data`` (the ``[note, resource_link]`` its MCP answers give for its
        data over ``max_inline_bytes``) unless the record holds another than ``replacing`` (None: none; else the
        one read before, whose link no longer reads), in one step: of several processes keeping one job's data
        at once, the first stored wins. Returns the ``kept_data`` the record holds now (``blocks``, or the
        winner's), None when the record is gone."""

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Record one progress update (and count it); a back end that :attr:`tells_ends` tells the
        processes following the job (:meth:`awaited` with ``follow``)."""

    def load(self, job_id: str) -> dict[str, Any] | None:
        """The record, or None."""

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        """The record, or None, read by a process that waits for the job's end (with ``follow``: that
        follows its changes too): a back end that :attr:`tells_ends` marks the job so, in the same
        step, and tells that process once another stores the end (with ``follow``, also a status,
        :meth:`changed`, or progress)."""

    def newest(self, limit: int) -> list[str]:
        """Ids of the newest ``limit`` records of every owner, newest first (never the records: their
        fields are read with :meth:`summaries`)."""

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        """Ids of one owner's records with their creation times, oldest first (ties by id): of those
        created at ``since`` or later, ``count`` from the ``start``-th on."""

    def summaries(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, Any]]:
        """Only the fields ``names`` (``"id"`` among them) of the records of ``ids`` still stored, in
        that order: a record's other fields (its result...) are not read."""

    def unfinished(self) -> list[dict[str, Any]]:
        """Records not in a terminal state."""

    def purge(self, now: float) -> list[str]:
        """Delete finished records past their ttl; returns their ids."""

    def session_gone(self, key: str) -> bool:
        """Whether the store knows that the session of ``key`` (``session_key`` of its id) ended: True when the server's
        sessions live beside the jobs (Redis) and its record is gone; False when it cannot tell
        (sessions are each process's own, which tells the job store itself: ``JobStore.session_ended``)."""

    def close(self) -> None:
        """Release the back end."""


class _Untold:
    """What a back end that tells no other process (:attr:`JobBackend.tells_ends` False) answers for
    the calls only a telling one carries out: the job store never asks it."""

    tells_ends = False

    def answer(self, job_id: str, answers: dict[str, Any]) -> None:
        pass

    def take_answers(self, job_id: str) -> list[dict[str, Any]]:
        return []


class MemoryBackend(_Untold):
    """Records in a dict: today's behaviour, nothing written to disk (``job_store="memory"``)."""

    persistent = False

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        with self._lock:
            _check_limits(len(self._rows), sum(1 for r in self._rows.values() if r["owner_key"] == record["owner_key"]),
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

    def keep_data(self, job_id: str, blocks: KeptData, replacing: KeptData | None) -> KeptData | None:
        with self._lock:
            row = self._rows.get(job_id)
            if row is None:
                return None
            if row.get("kept_data") == replacing:
                row["kept_data"] = blocks
            return list(row["kept_data"])

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        with self._lock:
            row = self._rows.get(job_id)
            if row is not None:
                row.update(progress=progress, progress_total=total, progress_message=message)
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

    def session_gone(self, key: str) -> bool:
        return False  # sessions are this process's: it tells the job store (JobStore.session_ended)

    def close(self) -> None:
        pass


def _guessed(row: dict[str, Any], guess: Guess | None) -> bool:
    """Whether ``row`` holds the end ``guess`` names (see :meth:`JobBackend.end`)."""
    return guess is not None and row["status"] == "failed" and (row.get("runner"), row.get("status_message")) == guess


def _check_limits(total: int, owned: int, max_total: int, max_per_owner: int) -> None:
    if total >= max_total:
        raise JobLimitReached(limit_message("on this server", max_total, "max_jobs"))
    if owned >= max_per_owner:
        raise JobLimitReached(limit_message("for one client", max_per_owner, "max_jobs_per_owner"))


class SQLiteBackend(_Untold):
    """Records in ``<state_dir>/jobs.sqlite3`` (stdlib ``sqlite3``, WAL). Jobs name their session by its
    key; a file of an earlier version is brought up to date when opened (:func:`.sqlite_file.bring_up_to_date`).
    """

    persistent = True  # (other processes' ends and changes are read: far_ends.LOOK_SECONDS)

    def __init__(self, directory: str) -> None:
        self.path, self._db, self.journal = open_database(directory, DB_FILE, SCHEMA)
        close_when_collected(self, self._db)
        self._lock = threading.Lock()
        with self._lock:
            bring_up_to_date(self._db)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, transaction(self._db) as db:
            yield db

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        values = [encode(name, record.get(name)) for name in COLUMNS]
        with self._write() as db:
            total = db.execute("SELECT count(*) FROM jobs").fetchone()[0]
            owned = db.execute("SELECT count(*) FROM jobs WHERE owner_key = ?", (record["owner_key"],)).fetchone()[0]
            _check_limits(total, owned, max_total, max_per_owner)
            db.execute(f"INSERT INTO jobs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})", values)

    def update(self, job_id: str, fields: dict[str, Any]) -> None:
        self._update(job_id, fields, "")

    def end(self, job_id: str, fields: dict[str, Any], guess: Guess | None = None) -> bool:
        if guess is None:
            return self._update(job_id, fields, f" AND status NOT IN {TERMINAL_SQL}") > 0
        condition = f" AND (status NOT IN {TERMINAL_SQL} OR (status = 'failed' AND runner = ? AND status_message = ?))"
        return self._update(job_id, fields, condition, guess) > 0

    def changed(self, job_id: str, fields: dict[str, Any]) -> bool:
        return self.end(job_id, fields)  # (the same rule: nothing replaces a stored end)

    def keep_data(self, job_id: str, blocks: KeptData, replacing: KeptData | None) -> KeptData | None:
        with self._write() as db:  # (BEGIN IMMEDIATE: another process's keep of the job waits for this one)
            found = db.execute("SELECT kept_data FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if found is None:
                return None
            held: KeptData | None = decode("kept_data", found[0])
            if held != replacing:
                return held
            db.execute("UPDATE jobs SET kept_data = ? WHERE id = ?", (encode("kept_data", blocks), job_id))
            return blocks

    def _update(self, job_id: str, fields: dict[str, Any], condition: str, more: tuple[Any, ...] = ()) -> int:
        names = [name for name in fields if name in COLUMNS and name not in ("id", "expires")]
        sets = [f"{name} = ?" for name in names]
        values = [encode(n, fields[n]) for n in names]
        if fields.get("finished_at") is not None:  # a job's end: when it expires (its ttl is the new one, if given)
            sets.append("expires = ? + " + ("?" if "ttl" in fields else "ttl"))
            values += [fields["finished_at"]] + ([fields["ttl"]] if "ttl" in fields else [])
        with self._write() as db:
            cursor = db.execute(f"UPDATE jobs SET {', '.join(sets)} WHERE id = ?{condition}", [*values, job_id, *more])
            return int(cursor.rowcount)

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        with self._write() as db:
            db.execute("UPDATE jobs SET progress = ?, progress_total = ?, progress_message = ?, "
                       "progress_updates = progress_updates + 1 WHERE id = ?",
                       (real(progress), real(total), encode("progress_message", message), job_id))

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self._db.execute(sql, params)
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        return [{name: decode(name, value) for name, value in zip(names, row, strict=True)} for row in rows]

    def load(self, job_id: str) -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM jobs WHERE id = ?", (job_id,))
        return rows[0] if rows else None

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        return self.load(job_id)

    def newest(self, limit: int) -> list[str]:
        with self._lock:
            found = self._db.execute("SELECT id FROM jobs ORDER BY created DESC LIMIT ?", (limit,))
            return [str(job_id) for (job_id,) in found.fetchall()]

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        with self._lock:
            found = self._db.execute("SELECT id, created FROM jobs WHERE owner_key = ? AND created >= ? "
                                     "ORDER BY created, id LIMIT ? OFFSET ?", (owner_key, since, count, start))
            return [(str(job_id), float(created)) for job_id, created in found.fetchall()]

    def summaries(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, Any]]:
        columns = ", ".join(name for name in names if name in COLUMNS)  # (names the code's, never a client's)
        index, covered = RUNNER_INDEX  # (SQLite's planner takes the primary key's index, then the row)
        table = f"jobs INDEXED BY {index}" if set(names) <= set(covered) else "jobs"
        found: dict[str, dict[str, Any]] = {}
        for first in range(0, len(ids), IDS_PER_QUERY):
            chunk = list(ids[first:first + IDS_PER_QUERY])
            for row in self._query(f"SELECT {columns} FROM {table} WHERE id IN ({', '.join('?' * len(chunk))})",
                                   tuple(chunk)):
                found[row["id"]] = row
        return [found[job_id] for job_id in ids if job_id in found]

    def unfinished(self) -> list[dict[str, Any]]:
        return self._query(f"SELECT * FROM jobs WHERE status NOT IN {TERMINAL_SQL}")

    def cancelled(self, ids: Collection[str]) -> dict[str, str | None]:
        """Of ``ids``, those whose record holds a cancel (stored by any process), with its message."""
        found: dict[str, str | None] = {}
        listed = list(ids)
        for start in range(0, len(listed), IDS_PER_QUERY):
            chunk = listed[start:start + IDS_PER_QUERY]
            with self._lock:
                rows = self._db.execute(
                    f"SELECT id, status_message FROM jobs WHERE status = 'cancelled' AND id IN "
                    f"({', '.join('?' * len(chunk))})", chunk).fetchall()
            found.update(rows)
        return found

    def purge(self, now: float) -> list[str]:
        # (expires IS NULL: a job another process of an earlier version ended in a shared file)
        expired = f"expires < ?1 OR (expires IS NULL AND status IN {TERMINAL_SQL} AND finished_at + ttl < ?1)"
        with self._write() as db:  # one transaction: the ids are those deleted (no RETURNING before SQLite 3.35)
            gone = [row[0] for row in db.execute(f"SELECT id FROM jobs WHERE {expired}", (now,))]
            if gone:
                db.execute(f"DELETE FROM jobs WHERE {expired}", (now,))
            return gone

    def session_gone(self, key: str) -> bool:
        return False  # sessions are each process's: the one holding it stores session_ended

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_backend(kind: str, shared: StateURL | None, name: str, directory: str, runs: Runs,
                 on_cancel: Callable[[str | None], None], on_end: Callable[[str | None], None],
                 on_change: Callable[[str | None], None], on_answer: Callable[[str | None], None]) -> JobBackend:
    """The back end a job store keeps its records in, with this process's runner lock claimed.

    ``kind`` "memory": :class:`MemoryBackend`. Else a shared state URL (Redis): the records live
    there, for every process of the server named ``name``, ``on_cancel(job_id)`` hears of the
    cancels other processes store (None: look at every live job), ``on_end(job_id)`` of the ends
    of jobs this process waits for (None: every wait looks again), ``on_change(job_id)`` of the
    changes of jobs it follows (None: every follower looks again) and ``on_answer(job_id)`` of the
    answers other processes received for its tasks (None: every task that waits looks). Else the SQLite file in
    ``directory``; a directory that cannot be used (unwritable, not a directory, a broken file)
    gives a :class:`MemoryBackend` instead, with a warning saying how to fix it.
    """
    if kind == "memory":
        return MemoryBackend()
    if shared is not None and shared.shared:
        from ...state.redis_jobs import RedisJobBackend
        from ...state.redis_runners import RedisRunners

        backend = RedisJobBackend(shared, name, limit_message)
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
