"""The job store in Redis, for servers whose processes run on several machines.

With a Redis state URL the job records live beside the sessions, so ``get_job_result`` (and
``tasks/get``) answers on any process, on any machine, and a finished result stays readable
until it expires. Same calls as the SQLite back end (a ``JobBackend`` of the job store), with
the ``redis`` package's synchronous client: the job store is called from any thread.

Keys under the server's namespace: ``job:<id>`` a hash of the record's fields (each JSON), expiring ``ttl``
after the job finished (a field added since an earlier version wrote the record is absent from it and reads as
its default: ``item_places`` None; ``kept_data``, the link its MCP answers give for its large data, is set once
by the first process to reserve it: :meth:`RedisJobBackend.keep_data`; a principal's subject as its digest:
:mod:`.redis_job_owners`); ``jobs`` and ``jobs:o:<owner>`` sorted sets
of ids by creation time (the bounds are counted there; ids whose record expired are dropped as they are met);
``jobs:expires`` the finished ids by when each expires, with ``jobs:scan`` where the purge's walk of ``jobs`` is
(:mod:`.redis_job_expiry`); ``jobs:live`` the unfinished ids; ``runner:<token>`` a heartbeat of each live server process
(:class:`~.redis_runners.RedisRunners`), so a job whose process died is told from one still running; channel
``jobs:cancel``: the id of each job a process stored as cancelled, for the process running it to stop it;
``awaited:<id>``, set while a process waits for the end of a job another process runs (``tasks/result``),
``followed:<id>`` while one follows its changes (a 2026 ``subscriptions/listen`` naming a task), channel
``jobs:end``: the id of each job marked so whose end a process stored, and channel ``jobs:status``: the id of
each followed job whose status or progress a process stored, for those processes (:meth:`RedisJobBackend.watch`,
:mod:`nanohubmcp.server.jobs.far_ends`). A job nobody marked costs no message. ``answers:<id>``: the answers to
a task's input requests another process received (``tasks/update``, at most :data:`MAX_ANSWERS`, for
:data:`AWAITED_TTL` seconds), named on channel ``jobs:answer`` for the process running the task
(:meth:`RedisJobBackend.answer`). Whether a job's session ended is read from the sessions' own records beside
them (:meth:`RedisJobBackend.session_gone`). The steps that must happen at once (a job added within its bounds,
an end stored once, a status change or progress stored and told, a job's kept data stored once) are the Lua
scripts of :mod:`.redis_job_scripts`, registered here.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import JobLimitReached
from ..schema.secret import stored_form
from . import redis_job_scripts as scripts
from .errors import StateBusy, StateUnavailable
from .redis_job_expiry import ExpiryIndex, expires_at
from .redis_job_owners import JobOwners
from .redis_refusals import Refusals, refusal
from .url import REDIS_ENCODING_ERRORS, StateURL

log = logging.getLogger("nanohubmcp.state")

TERMINAL = ("completed", "failed", "cancelled")
KEEP_AFTER_TTL = 60
"""Seconds a finished record outlives its ttl in Redis (the job store's own purge comes first)."""

MAX_ANSWERS = 64
"""Answers kept per task for the process running it, the newest (``tasks/update`` sent elsewhere)."""
CANCEL_RETRY = 1.0
"""Seconds between attempts to subscribe to the job channels again after Redis went away."""
AWAITED_TTL = 30
"""Seconds a process's mark that it waits for a job's end (or follows its changes) lasts; the waiting
process sets it again each time it reads the record (``far_ends.TOLD_LOOK_SECONDS``), so the mark
outlives no wait by long (a followed job's changes are told for that long after its listen ended)."""


def sync_client(url: StateURL) -> Any:
    """A synchronous client of ``url`` for the job side (called from any thread): the job store's and the
    runners' heartbeats (:mod:`.redis_runners`)."""
    import redis

    return redis.Redis.from_url(url.url, decode_responses=True, encoding_errors=REDIS_ENCODING_ERRORS,
                                socket_connect_timeout=2.0, socket_timeout=10.0)


class Outage:
    """The outages of one Redis client of the job store, each logged once as it starts (a warning)
    and once as it ends (the next command that succeeds), however many commands fail meanwhile.
    ``with outage():`` around each command: Redis busy (every pooled connection in use) raises
    :class:`~.errors.StateBusy`, Redis unreachable or refusing writes (``OOM``, ``READONLY``:
    :mod:`.redis_refusals`) :class:`~.errors.StateUnavailable` (503 either way). A refusal ends at the
    next write taken: ``with outage(reading=True):`` around commands Redis takes while it refuses
    writes (reads, deletes under ``OOM``)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.down = False
        self.refusals = Refusals(f"job store in {shown}")

    @contextlib.contextmanager
    def __call__(self, *, reading: bool = False) -> Any:
        import redis.exceptions as errors

        try:
            yield
        except errors.MaxConnectionsError:  # every pooled connection in use: busy, not unreachable
            raise StateBusy() from None
        except (errors.ConnectionError, errors.TimeoutError, OSError) as exc:
            if not self.down:
                self.down = True
                log.warning("job store in %s unreachable (%s); answering 503 until it is back", self.shown,
                            type(exc).__name__)
            raise StateUnavailable() from None
        except errors.ResponseError as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            raise self.refusals.refused(reason) from None
        if self.down:
            self.down = False
            log.warning("job store in %s reachable again", self.shown)
        if not reading:
            self.refusals.wrote()


class RedisJobBackend:
    """Job records in Redis (see the module docstring)."""

    persistent = True
    tells_ends = True

    def __init__(self, url: StateURL, name: str, limit_message: Callable[[str, int, str], str], *,
                 secret: str | bytes | None = None) -> None:
        self.shown = url.shown
        self.prefix = f"nanohubmcp:{name}:"
        self._redis = sync_client(url)
        self._guard = Outage(url.shown)
        self._insert = self._redis.register_script(scripts.INSERT)
        self._end = self._redis.register_script(scripts.END)
        self._changed = self._redis.register_script(scripts.CHANGED)
        self._progress = self._redis.register_script(scripts.PROGRESS)
        self._keep_data = self._redis.register_script(scripts.KEEP_DATA)
        self._expiries = ExpiryIndex(self._redis, self._key, self._guard)
        self._limit_message = limit_message
        self._url = url
        self._watching = threading.Event()
        self.owners = JobOwners(self._redis, self._key, secret, self._guard)

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        record = self.owners.record(record)
        fields: list[str] = []
        for name, value in record.items():  # (arguments may hold objects JSON has no form for: see stored_form)
            fields += [name, json.dumps(value, default=stored_form)]
        keys = [
            self._key("jobs"),
            self._key("jobs", "o", str(record["owner_key"])),
            self._key("job", record["id"]),
            self._key("jobs", "live"),
        ]
        with self._guard():
            refused = self._insert(keys=keys, args=[max_total, max_per_owner, record["id"], record["created"], *fields])
        if refused == 1:
            raise JobLimitReached(self._limit_message("on this server", max_total, "max_jobs"))
        if refused == 2:
            raise JobLimitReached(self._limit_message("for one client", max_per_owner, "max_jobs_per_owner"),
                                  per_owner=True)

    def update(self, job_id: str, fields: dict[str, Any]) -> None:
        key = self._key("job", job_id)
        with self._guard():
            if not self._redis.exists(key):
                return
            pipe = self._redis.pipeline(transaction=True)
            pipe.hset(key, mapping={name: json.dumps(value) for name, value in fields.items() if name != "id"})
            if fields.get("status") in TERMINAL:
                pipe.srem(self._key("jobs", "live"), job_id)
            if fields.get("finished_at") is not None:
                ttl = fields.get("ttl")
                if ttl is None:
                    stored = self._redis.hget(key, "ttl")
                    ttl = json.loads(stored) if stored else 3600
                pipe.expire(key, int(float(ttl)) + KEEP_AFTER_TTL)
                self._expiries.add(pipe, job_id, float(fields["finished_at"]) + float(ttl))
            pipe.execute()

    def end(self, job_id: str, fields: dict[str, Any], guess: tuple[str, str] | None = None) -> bool:
        """Store a job's end unless its record holds one already, other than the ``failed`` end
        ``guess`` names (``(runner, message)``: the end another process guessed for a job of that
        runner while its heartbeat lapsed); a cancel is also named on the cancel channel, so the
        process running the job stops it, and the end of a job a process waits for
        (:meth:`awaited`) on the end channel, so that process answers (:meth:`watch`)."""
        ttl, expires = fields.get("ttl"), expires_at(fields)
        args: list[Any] = [int(float(ttl if ttl is not None else 3600)) + KEEP_AFTER_TTL, job_id,
                           "1" if fields.get("status") == "cancelled" else "0",
                           *((json.dumps(guess[0]), json.dumps(guess[1])) if guess is not None else ("", "")),
                           "" if expires is None else repr(expires)]
        for name, value in fields.items():
            if name != "id":
                args += [name, json.dumps(value)]
        keys = [self._key("job", job_id), self._key("jobs", "live"), self._key("jobs", "cancel"),
                self._key("awaited", job_id), self._key("jobs", "end"), self._key("followed", job_id),
                self._expiries.name]
        with self._guard():
            return bool(self._end(keys=keys, args=args))

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        """The record of ``job_id`` (None when gone), read in one step with the mark that this
        process waits for its end (``awaited:<id>``; with ``follow``, ``followed:<id>``: that it
        follows its changes), lasting :data:`AWAITED_TTL` seconds: the process that stores the end
        finds the mark and names the job on the end channel, one that stores a change of a followed
        job on the status channel (:meth:`watch`). What was stored before the mark is in the
        record read."""
        with self._guard():
            pipe = self._redis.pipeline(transaction=True)
            pipe.set(self._key("followed" if follow else "awaited", job_id), "1", ex=AWAITED_TTL)
            pipe.hgetall(self._key("job", job_id))
            found = pipe.execute()
        return self._decode(found[1])

    def changed(self, job_id: str, fields: dict[str, Any]) -> bool:
        """Store a running job's status fields unless its record holds an end; a process following
        the job (:meth:`awaited` with ``follow``) is told on the status channel (:meth:`watch`). True
        when written."""
        args: list[Any] = [job_id]
        for name, value in fields.items():
            if name != "id":
                args += [name, json.dumps(value)]
        keys = [self._key("job", job_id), self._key("followed", job_id), self._key("jobs", "status")]
        with self._guard():
            return bool(self._changed(keys=keys, args=args))

    def keep_data(self, job_id: str, blocks: list[dict[str, Any]] | None,
                  replacing: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        """Store ``blocks`` as the job's ``kept_data`` (None: none, the field removed) unless the record holds
        another than ``replacing`` (None: none), in one step (the first process's keep of a job's data wins);
        returns the ``kept_data`` the record holds now, None when it holds none or the record is gone."""
        args = ["" if blocks is None else json.dumps(blocks), "" if replacing is None else json.dumps(replacing)]
        with self._guard():
            held = self._keep_data(keys=[self._key("job", job_id)], args=args)
        return None if not held else list(json.loads(held))

    def answer(self, job_id: str, answers: dict[str, Any]) -> None:
        """Keep ``answers`` (to input requests of the task ``job_id``, received by this process) for
        the process running the task, and name the task on the answer channel (:meth:`watch`), in one
        step; that process takes them (:meth:`take_answers`)."""
        key = self._key("answers", job_id)
        with self._guard():
            pipe = self._redis.pipeline(transaction=True)
            pipe.rpush(key, json.dumps(answers))
            pipe.ltrim(key, -MAX_ANSWERS, -1)
            pipe.expire(key, AWAITED_TTL)
            pipe.publish(self._key("jobs", "answer"), job_id)
            pipe.execute()

    def take_answers(self, job_id: str) -> list[dict[str, Any]]:
        """The answers other processes kept for the task ``job_id`` (:meth:`answer`), oldest first,
        taken (each is taken once)."""
        key = self._key("answers", job_id)
        with self._guard(reading=True):
            pipe = self._redis.pipeline(transaction=True)
            pipe.lrange(key, 0, -1)
            pipe.delete(key)
            found = pipe.execute()[0]
        return [json.loads(raw) for raw in found]

    def watch(self, on_cancel: Callable[[str | None], None], on_end: Callable[[str | None], None],
              on_change: Callable[[str | None], None], on_answer: Callable[[str | None], None]) -> None:
        """Call ``on_cancel(job_id)`` for each job another process stored as cancelled,
        ``on_end(job_id)`` for each job whose end a process stored while one waited for it or
        followed it (:meth:`awaited`), and ``on_change(job_id)`` for each followed job whose status
        (:meth:`changed`) or progress a process stored, and ``on_answer(job_id)`` for each task whose
        answers another process kept (:meth:`answer`), on a thread of its own; each callback also
        gets ``None`` each time the subscription is made (at first, and again after Redis went
        away: what was sent meanwhile is then found in the records)."""
        if self._watching.is_set():
            return
        self._watching.set()
        callbacks = {self._key("jobs", "cancel"): on_cancel, self._key("jobs", "end"): on_end,
                     self._key("jobs", "status"): on_change, self._key("jobs", "answer"): on_answer}
        stop, url = self._watching, self._url
        # Held weakly: the watcher ends with the job store it tells (a server no longer used). The thread
        # holds the channels' names and these weak references only, never the callbacks themselves.
        told = {channel: _weakly(callback) for channel, callback in callbacks.items()}
        channels = tuple(callbacks)

        def alive() -> bool:
            return all(ref() is not None for ref in told.values())

        def tell(channel: str, job_id: str | None) -> None:
            target = told[channel]() if channel in told else None
            if target is not None:
                target(job_id)

        def watch() -> None:
            while stop.is_set() and alive():
                client = sync_client(url)
                try:
                    pubsub = client.pubsub()
                    pubsub.subscribe(*channels)
                    while stop.is_set() and alive():  # each second: is the store still used?
                        message = pubsub.get_message(timeout=1.0)
                        if message is None:
                            continue
                        if message.get("type") == "subscribe":
                            tell(str(message["channel"]), None)
                        elif message.get("type") == "message":
                            tell(str(message["channel"]), str(message["data"]))
                except Exception as exc:  # Redis went away: subscribe again once it is back
                    log.debug("job channels in %s lost (%s)", url.shown, type(exc).__name__)
                    time.sleep(CANCEL_RETRY)
                finally:
                    with contextlib.suppress(Exception):
                        client.close()
            stop.clear()

        threading.Thread(target=watch, name="nanohubmcp-job-channels", daemon=True).start()
        weakref.finalize(self, stop.clear)

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None,
                 updated: float) -> None:
        """Store one progress update (counted) in one step; a process following the job
        (:meth:`awaited` with ``follow``) is told on the status channel (:meth:`watch`)."""
        keys = [self._key("job", job_id), self._key("followed", job_id), self._key("jobs", "status")]
        args = [job_id, json.dumps(progress), json.dumps(total), json.dumps(message), json.dumps(updated)]
        with self._guard():
            self._progress(keys=keys, args=args)

    @staticmethod
    def _decode(raw: dict[str, str]) -> dict[str, Any] | None:
        return {name: json.loads(value) for name, value in raw.items()} if raw else None

    def load(self, job_id: str) -> dict[str, Any] | None:
        with self._guard(reading=True):
            return self._decode(self._redis.hgetall(self._key("job", job_id)))

    def _many(self, ids: list[str]) -> list[dict[str, Any]]:
        with self._guard(reading=True):
            pipe = self._redis.pipeline(transaction=False)
            for job_id in ids:
                pipe.hgetall(self._key("job", job_id))
            found = pipe.execute()
        return [row for row in (self._decode(raw) for raw in found) if row is not None]

    def newest(self, limit: int) -> list[str]:
        """Read from the index of every record (scores: creation times), never the records: an id
        whose record expired is in it until :meth:`purge` (:meth:`summaries` leaves it out)."""
        with self._guard(reading=True):
            return [str(job_id) for job_id in self._redis.zrevrange(self._key("jobs"), 0, limit - 1)]

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        """Read from the owner's sorted set (scores: creation times), never the records."""
        with self._guard(reading=True):
            index = self._key("jobs", "o", self.owners.owner_key(owner_key))
            found = self._redis.zrangebyscore(index, since, "+inf", start=start, num=count, withscores=True)
        return [(str(job_id), float(created)) for job_id, created in found]

    def principal_matches(self, stored: str, subject: str) -> bool:  # (:mod:`.redis_job_owners`)
        return self.owners.matches(stored, subject)

    def summaries(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, Any]]:
        """One ``HMGET`` of ``names`` a record, in one round trip: the other fields stay in Redis."""
        fields = list(names)
        with self._guard(reading=True):
            pipe = self._redis.pipeline(transaction=False)
            for job_id in ids:
                pipe.hmget(self._key("job", job_id), fields)
            found = pipe.execute()
        rows = [{name: json.loads(value) for name, value in zip(fields, values, strict=True) if value is not None}
                for values in found]
        return [row for row in rows if row.get("id") is not None]  # (an expired record: every field None)

    def unfinished(self) -> list[dict[str, Any]]:
        with self._guard(reading=True):
            ids = list(self._redis.smembers(self._key("jobs", "live")))
        return [row for row in self._many(ids) if row.get("status") not in TERMINAL]

    def purge(self, now: float) -> list[str]:
        """Drop from the indexes the ids of the jobs expired at ``now`` (a bounded batch: :mod:`.redis_job_expiry`;
        Redis removes their records ``KEEP_AFTER_TTL`` later); returns them."""
        return self._expiries.purge(now)

    def earliest_expiry(self) -> float | None:
        """From the expiry index, one look (:meth:`.redis_job_expiry.ExpiryIndex.earliest`)."""
        return self._expiries.earliest()

    def session_gone(self, key: str) -> bool:
        """Whether the session of ``key`` (``session_key`` of its id: records never hold the id) is
        gone from Redis: ended by a DELETE on any process, expired idle, or lost with the store. The
        server's sessions live beside its jobs, under the same namespace, each with a ``k:<key>``
        that lives as long as its record (:mod:`nanohubmcp.state.redis_sessions`); checking costs no
        idle time. A session made by an earlier version has none until it is saved again: its jobs
        are read by their id meanwhile, as an ended session's are."""
        with self._guard(reading=True):
            return not self._redis.exists(self._key("k", key))

    def close(self) -> None:
        self._watching.clear()
        with contextlib.suppress(Exception):
            self._redis.close()


def _weakly(callback: Callable[[str | None], None]) -> Callable[[], Callable[[str | None], None] | None]:
    """``callback`` held weakly when it is a bound method (the watcher must not keep its store alive)."""
    if inspect.ismethod(callback):
        return weakref.WeakMethod(callback)
    return lambda: callback
