"""The job store's SQLite file: its table, how values are written in it, and how an earlier version's file is
brought up to date; and how a SQLite file of the state directory is opened (provenance opens its own so).

A record is a row of the ``jobs`` table, a column each of :data:`COLUMNS`; ``arguments``, ``result``,
``error``, ``meta``, ``input_requests``, ``item_places`` and ``kept_data`` hold JSON text (:func:`encode`,
:func:`decode`), the flags 0 or 1. A file of an earlier version gains the columns it lacks and names
its sessions by their keys when it is opened (:func:`bring_up_to_date`). The operations on the rows
are :class:`~.sqlite_store.SQLiteBackend`'s.

A file is opened by :func:`open_database`: WAL (readers never wait for the writer) and
``synchronous=NORMAL``: a committed write survives the process being killed (``kill -9``); only an
operating-system crash may lose the last transactions.
"""

from __future__ import annotations

import json
import os
import sqlite3
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from ...protocol.lone_surrogates import utf8_storable
from ...schema.secret import stored_form
from ...state.base import session_key
from ..wire.state_dir import private_folder

COLUMNS = (
    "id", "tool", "owner", "principal", "owner_key", "status", "status_message", "arguments",
    "result", "error", "meta", "created", "updated", "finished_at", "ttl", "as_task", "executor",
    "executor_ref", "runner", "progress", "progress_total", "progress_message", "progress_updates", "expires",
    "provenance_id", "json_text", "session_ended", "input_requests", "item_places", "kept_data",
)
JSON_COLUMNS = ("arguments", "result", "error", "meta", "input_requests", "item_places", "kept_data")
FLAG_COLUMNS = ("as_task", "json_text", "session_ended")
TERMINAL_SQL = "('completed', 'failed', 'cancelled')"
SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, tool TEXT NOT NULL, owner TEXT, principal TEXT, owner_key TEXT NOT NULL,
    status TEXT NOT NULL, status_message TEXT, arguments TEXT, result TEXT, error TEXT, meta TEXT,
    created REAL NOT NULL, updated REAL NOT NULL, finished_at REAL, ttl REAL NOT NULL,
    as_task INTEGER NOT NULL DEFAULT 0, executor TEXT, executor_ref TEXT, runner TEXT,
    progress REAL, progress_total REAL, progress_message TEXT,
    progress_updates INTEGER NOT NULL DEFAULT 0, expires REAL, provenance_id TEXT,
    json_text INTEGER NOT NULL DEFAULT 0, session_ended INTEGER NOT NULL DEFAULT 0, input_requests TEXT,
    item_places TEXT, kept_data TEXT);
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs(owner_key);
CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs(created, id);
CREATE INDEX IF NOT EXISTS jobs_by_runner ON jobs(id, runner);
"""
RUNNER_INDEX = ("jobs_by_runner", ("id", "runner"))
"""The index holding each job's ``runner`` beside its id: the operator's listing reads which process ran
every job from it (:meth:`~.sqlite_store.SQLiteBackend.summaries`), and ``jobs_by_created`` gives the newest
ids, neither reading a row: a row's columns after ``result`` lie past its result's overflow pages, which
SQLite reads one by one to reach them (200 rows of a 5 MB result: about 1 GB read per look). A file of
an earlier version gains both indexes when it is opened."""
EXPIRES_INDEX = "CREATE INDEX IF NOT EXISTS jobs_by_expires ON jobs(expires)"
"""``expires`` (``finished_at + ttl``, set when a job ends) makes the purge a range delete; a file
of an earlier version gains the column (filled from its finished jobs) when it is opened, and
``provenance_id`` (None for its jobs), ``json_text`` (0: their results read as text),
``session_ended`` (0), ``input_requests`` (None), ``item_places`` (None: a job's list mixing blocks
with data reads back as before) and ``kept_data`` (None: a job's data is kept at its next MCP answer) likewise."""


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on ``db`` (``BEGIN IMMEDIATE``: writers of other processes wait for it,
    up to the connection's busy timeout), rolled back if the block raises. The caller holds the
    connection's lock."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


BUSY_TIMEOUT_SECONDS = 30.0
"""How long a statement of a connection :func:`open_database` opens waits for another connection's write lock
on the file (SQLite's busy timeout) before it fails with ``sqlite3.OperationalError`` ("database is locked").
Read each time a file is opened."""
SIDE_FILES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database file (made with the database file's mode)."""


def open_database(directory: str, file: str, schema: str) -> tuple[str, sqlite3.Connection, str]:
    """``(path, connection, journal mode)`` of ``directory/file`` (made ``0o700``), its ``schema``
    applied: one connection for any thread (the caller serialises it with a lock), autocommit with
    explicit transactions, WAL and ``synchronous=NORMAL``, a lock waited for :data:`BUSY_TIMEOUT_SECONDS`.
    The file is its owner's only (:func:`owner_only`).

    Raises:
        OSError / sqlite3.Error: the directory or the file cannot be used.
    """
    private_folder(directory, tighten=False)  # (one made beforehand is the operator's to set)
    path = os.path.join(directory, file)
    owner_only(path)
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
    # A network file system cannot do WAL (SQLite needs shared memory there): SQLite then keeps
    # its rollback journal, which works anywhere a single server uses the file.
    journal = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    return path, db, str(journal)


def close_when_collected(owner: object, db: sqlite3.Connection) -> None:
    """Close ``db`` once ``owner`` (the store holding it) is collected, but not in the finalizers' pass
    at the process's exit: a daemon thread may be inside a statement on ``db`` then (a job's function
    that outlived its stopped server storing its end, the provenance writer's last drain), and a
    connection closed under it crashes the process (a segmentation fault). The process's end
    releases the file; a transaction it cut short is rolled back when the file is next opened."""
    weakref.finalize(owner, db.close).atexit = False


def owner_only(path: str) -> None:
    """Make the database file ``path`` readable and writable by its owner only (mode ``0o600``) before
    SQLite opens it: a new one is created so, and one of an earlier version (or made under a looser
    umask) that this user owns is set so, with its side files (:data:`SIDE_FILES`), which SQLite
    creates with the database file's mode. A state directory that others may read (one made beforehand
    for several servers, mode ``0o755``) then shows them the files' names only, never a principal's
    jobs, cached results or provenance records. A file of another owner is left as it is (SQLite
    reports whether it can use it)."""
    if os.name != "posix":  # (modes are POSIX's; elsewhere the directory's access rules apply)
        return
    try:
        handle = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)
    except OSError:
        return  # (a file this user may not open: sqlite3.connect says why)
    os.close(handle)
    for name in (path, *(path + side for side in SIDE_FILES)):
        with suppress(OSError):  # (a side file that is not there, or not this user's)
            found = os.stat(name)
            if found.st_uid == os.geteuid() and found.st_mode & 0o077:
                os.chmod(name, 0o600)


def rekey_sessions(db: sqlite3.Connection, found: str, updates: tuple[str, ...]) -> int:
    """Replace the session ids rows of an earlier version hold by their keys (``session_key``: a
    stored record never holds the id, a live session's credential when there is no authorization).

    ``found`` selects one such row (a scan, on opening the file); when there is one, ``updates`` run
    in one transaction, in SQL that may call ``session_key(text)``, with ``secure_delete`` on (the
    ids' bytes are zeroed, not left in free space) and a checkpoint after (the main file rewritten).
    Returns how many rows changed. The caller holds the connection's lock.
    """
    if db.execute(found).fetchone() is None:
        return 0
    db.create_function("session_key", 1, session_key, deterministic=True)
    db.execute("PRAGMA secure_delete=ON")
    changed = 0
    try:
        with transaction(db):
            for update in updates:
                changed += db.execute(update).rowcount
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.execute("PRAGMA secure_delete=OFF")
    return changed


_OLD_OWNERS = "SELECT 1 FROM jobs WHERE owner IS NOT NULL AND length(owner) <> 64 LIMIT 1"
_REKEY_OWNERS = (
    "UPDATE jobs SET owner = session_key(owner), owner_key = CASE WHEN principal IS NULL "
    "THEN 'session:' || session_key(owner) ELSE owner_key END WHERE owner IS NOT NULL AND length(owner) <> 64",
)
"""A job of an earlier version names its session by its id (43 characters): by its key from now on."""


def bring_up_to_date(db: sqlite3.Connection) -> None:
    """Give the job file ``db`` of an earlier version the columns it lacks (:data:`EXPIRES_INDEX`) and its
    sessions' keys for their ids (:func:`rekey_sessions`); nothing for a file of this version. The
    caller holds the connection's lock."""
    if _missing(db):
        with transaction(db):
            missing = _missing(db)  # another process may have migrated it meanwhile
            if "expires" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN expires REAL")
                db.execute(f"UPDATE jobs SET expires = finished_at + ttl WHERE status IN {TERMINAL_SQL}")
            if "provenance_id" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN provenance_id TEXT")
            if "json_text" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN json_text INTEGER NOT NULL DEFAULT 0")
            if "session_ended" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN session_ended INTEGER NOT NULL DEFAULT 0")
            if "input_requests" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN input_requests TEXT")
            if "item_places" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN item_places TEXT")
            if "kept_data" in missing:
                db.execute("ALTER TABLE jobs ADD COLUMN kept_data TEXT")
    db.execute(EXPIRES_INDEX)
    rekey_sessions(db, _OLD_OWNERS, _REKEY_OWNERS)


def _missing(db: sqlite3.Connection) -> set[str]:
    """The columns a file of an earlier version lacks."""
    have = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
    return {"expires", "provenance_id", "json_text", "session_ended", "input_requests", "item_places",
            "kept_data"} - have


def encode(name: str, value: object) -> Any:
    """``value`` as the column ``name`` holds it; text as UTF-8 can hold it (a lone surrogate a client sent,
    in the arguments or echoed in a result or message, as its JSON escape: :func:`utf8_storable`)."""
    if name in JSON_COLUMNS:
        # (arguments from server.call may hold objects JSON has no form for: stored_form's form, secrets out)
        return None if value is None else utf8_storable(json.dumps(value, separators=(",", ":"), ensure_ascii=False,
                                                                   default=stored_form))
    if name in FLAG_COLUMNS:
        return int(bool(value))
    return utf8_storable(value) if isinstance(value, str) else value


def decode(name: str, value: Any) -> Any:
    """What the column ``name`` holds as the record's value."""
    if name in JSON_COLUMNS:
        return None if value is None else json.loads(value)
    if name in FLAG_COLUMNS:
        return bool(value)
    return value


def real(value: float | None) -> float | None:
    """A progress number SQLite can bind: an int beyond 64 bits as the float it stands for (REAL
    column), None for one beyond any float."""
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        try:
            return float(value)
        except OverflowError:  # beyond any float: not kept (the client's notification still carries it)
            return None
    return value
