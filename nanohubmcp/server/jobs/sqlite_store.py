"""Job records in one SQLite file, kept across restarts: :class:`SQLiteBackend`.

The file (its table, the columns' encoding, an earlier version's file brought up to date, WAL:
:mod:`.sqlite_file`): every write is one short transaction; writers in one process are serialised by
a lock, writers in several processes by ``BEGIN IMMEDIATE`` and SQLite's busy timeout. A progress
update is an ``UPDATE ... SET progress_updates = progress_updates + 1``, so concurrent updates are
counted, never lost. It takes the calls of :class:`~.backend.JobBackend`; :func:`~.stores.open_backend`
picks it for a job store kept on disk.

A file that is not, or no longer, a database (overwritten or truncated while serving, or damaged so that
SQLite opened it but cannot read a page) raises :class:`JobStoreUnreadable`: the shared store's refusal (HTTP
503, -32000, ``Retry-After``) saying so, logged once with the file's path; the server serves on.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...state.errors import StateUnavailable
from . import DB_FILE
from .backend import Guess, KeptData, Untold, check_limits
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

__all__ = ["IDS_PER_QUERY", "JobStoreUnreadable", "SQLiteBackend"]

log = logging.getLogger("nanohubmcp.jobs")

IDS_PER_QUERY = 500
"""Ids named in one query (SQLite's bound on parameters is 999 in older builds)."""


class JobStoreUnreadable(StateUnavailable, sqlite3.DatabaseError):
    """The job store's SQLite file cannot be read (SQLite: "file is not a database", "database disk image is
    malformed"): answered as the shared store being unreachable (HTTP 503, -32000, ``Retry-After``), its message
    saying what is wrong, never "Internal error". Also an ``sqlite3.DatabaseError``, so every place that goes on
    without the store (``except sqlite3.Error``) goes on as before. The message names no path (the log does)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"The server's job store cannot be read ({reason}); its operator must replace its file "
                         "(the server's log names it)")


class SQLiteBackend(Untold):
    """Records in ``<state_dir>/jobs.sqlite3`` (stdlib ``sqlite3``, WAL). Jobs name their session by its
    key; a file of an earlier version is brought up to date when opened (:func:`.sqlite_file.bring_up_to_date`).
    """

    persistent = True  # (other processes' ends and changes are read: far_ends.LOOK_SECONDS)

    def __init__(self, directory: str) -> None:
        self.path, self._db, self.journal = open_database(directory, DB_FILE, SCHEMA)
        close_when_collected(self, self._db)
        self._lock = threading.Lock()
        self._told = False  # the file's damage is logged (once, until it reads again)
        with self._lock:
            bring_up_to_date(self._db)

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock; a damaged file's error as :class:`JobStoreUnreadable`."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.DatabaseError as exc:
                # (its subclasses are other failures: OperationalError "database is locked", a full disk...)
                if type(exc) is not sqlite3.DatabaseError:
                    raise
                if not self._told:
                    self._told = True
                    log.error("the job store's file %s cannot be read (%s): no job can be started or read from it "
                              "(503 to every such request) until it is replaced: stop the server, move the file "
                              "aside, start it again", self.path, exc)
                raise JobStoreUnreadable(str(exc)) from exc
            self._told = False

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._locked() as db, transaction(db):
            yield db

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        values = [encode(name, record.get(name)) for name in COLUMNS]
        with self._write() as db:
            total = db.execute("SELECT count(*) FROM jobs").fetchone()[0]
            owned = db.execute("SELECT count(*) FROM jobs WHERE owner_key = ?", (record["owner_key"],)).fetchone()[0]
            check_limits(total, owned, max_total, max_per_owner)
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

    def keep_data(self, job_id: str, blocks: KeptData | None, replacing: KeptData | None) -> KeptData | None:
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

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None,
                 updated: float) -> None:
        with self._write() as db:
            db.execute("UPDATE jobs SET progress = ?, progress_total = ?, progress_message = ?, "
                       "progress_updates = progress_updates + 1, "
                       "updated = CASE WHEN finished_at IS NULL THEN ? ELSE updated END WHERE id = ?",
                       (real(progress), real(total), encode("progress_message", message), updated, job_id))

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self._locked() as db:
            cursor = db.execute(sql, params)
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        return [{name: decode(name, value) for name, value in zip(names, row, strict=True)} for row in rows]

    def load(self, job_id: str) -> dict[str, Any] | None:
        rows = self._query("SELECT * FROM jobs WHERE id = ?", (job_id,))
        return rows[0] if rows else None

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        return self.load(job_id)

    def newest(self, limit: int) -> list[str]:
        with self._locked() as db:
            found = db.execute("SELECT id FROM jobs ORDER BY created DESC LIMIT ?", (limit,))
            return [str(job_id) for (job_id,) in found.fetchall()]

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        with self._locked() as db:
            found = db.execute("SELECT id, created FROM jobs WHERE owner_key = ? AND created >= ? "
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
            with self._locked() as db:
                rows = db.execute(
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

    def earliest_expiry(self) -> float | None:
        with self._locked() as db:  # (the index jobs_by_expires: one look, not a scan)
            found = db.execute("SELECT MIN(expires) FROM jobs").fetchone()
        return None if found is None or found[0] is None else float(found[0])

    def session_gone(self, key: str) -> bool:
        return False  # sessions are each process's: the one holding it stores session_ended

    def close(self) -> None:
        with self._lock:
            self._db.close()
