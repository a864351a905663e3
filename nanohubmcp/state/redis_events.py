"""Streams' event logs in Redis: one Redis stream per log, ``ev:<session>:<stream>``, of at most
~:data:`EVENT_KEEP` entries, expiring with the session (a finished POST response stream sooner,
:data:`FINISHED_KEEP`).

The finished POST response logs of a session are bounded as a single process bounds its finished
streams: at most :data:`KEEP_STREAMS` of them, and at most :data:`KEEP_BYTES` of messages in all (the
newest is kept whatever its size, so the last answer can always be resumed); the oldest are deleted
first. ``ek:<session>`` lists them, oldest first, each as ``<bytes> <key>``, and ``eb:<session>`` counts
their bytes (:data:`.TRIM`, run with the write of each one's last entry); those of all of one authenticated
principal's sessions likewise, :data:`PRINCIPAL_BYTES` in all (``pk:``/``pb:<principal's digest>``). A log
deleted so reads as empty, as one that expired. A session's end (DELETE, eviction, a principal's share) deletes its
finished logs (:data:`.DROP`): the session limits bound them too. A running stream's log is
bounded in bytes too, as a stream one process keeps (:mod:`.redis_event_bounds`).

Writes are queued and pipelined in order by one task per process, so messages of one process
reach the log in the order they were sent; while Redis is away (or answers nothing, or this process's
pool is full) they wait (at most :data:`MAX_QUEUED`; past it the oldest are dropped, said once per
burst) and are written once it is back, tried again after a bounded backoff (a batch that timed out may have
reached Redis, which then holds its entries twice: each is numbered, so readers skip the copy). Entries Redis answers
with an error reply that would come again (``OOM`` under ``maxmemory-policy noeviction``, a replica's
``READONLY``, a value it refuses) are dropped with one warning per burst naming how many and why, and
the writer goes on: later entries are written as soon as Redis takes them
(:mod:`~nanohubmcp.state.redis_write_trouble`). The writer never ends while the store is open: a
failure of its own is logged and it starts again. Reads (a client's stream, a resume) go to Redis
directly. What this module does not own: the connection and its outage handling
(:class:`~nanohubmcp.state.redis_state.RedisState`, whose guard every command here goes through).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from .base import NUMBER, Fields
from .errors import StateUnavailable
from .redis_event_bounds import DROP, RUNNING_BYTES, TRIM, TRIM_SHA, LogBytes, cut_key
from .redis_refusals import refusal
from .redis_write_trouble import Backoff, LossReport

log = logging.getLogger("nanohubmcp.state")

EVENT_KEEP = 256
"""Entries kept per stream log (approximately: Redis trims whole nodes)."""
FINISHED_KEEP = 300
"""Seconds the log of a POST response stream is kept after its response (for a late resume)."""
MAX_QUEUED = 10_000
"""Entries waiting for Redis at most; past it the oldest are dropped, said once per burst."""
KEEP_STREAMS = 64
"""Finished POST response logs kept per session (as many streams as a session holds in one process)."""
KEEP_BYTES = 8 * 1024 * 1024
"""Bytes of messages of a session's finished POST response logs kept, beyond the newest one's."""
PRINCIPAL_STREAMS = 8192
"""Finished POST response logs kept of all of one authenticated principal's sessions."""
PRINCIPAL_BYTES = 64 * 1024 * 1024
"""Bytes of messages of the finished POST response logs of all of one authenticated principal's sessions kept,
beyond the newest one's (as one process keeps of its finished streams:
:data:`~nanohubmcp.server.wire.finished_streams.PER_PRINCIPAL`)."""
MAX_SIZED = 4096
"""Unfinished POST response logs this process counts the bytes of; past it the oldest count is
forgotten (a stream that never finishes: its log expires with its session)."""
BATCH = 256
"""Entries written per pipeline, and read per ``XREAD``."""
RETRY_SECONDS = 0.5
"""Pause before the writer starts again after a failure of its own (and the channels' first pause)."""
LOOK_BACK = 4 * EVENT_KEEP
"""Entries at most a resuming reader looks back at (:meth:`RedisEventLogs.numbers_upto`): the whole log, which
Redis trims to ~:data:`EVENT_KEEP` by whole nodes of up to 100 entries."""


Listed = tuple[str, str, int, str, tuple[str, str] | None]
"""A finished POST response log for :data:`.TRIM`: the session's ``ek`` and ``eb`` keys, the log's bytes and key,
and its principal's ``pk`` and ``pb`` keys (None: no principal)."""
Guard = Callable[[], contextlib.AbstractAsyncContextManager[Any]]
Entry = tuple[str, Fields, Listed | None]
"""A queued entry: its log's key, its fields, and the session's bounds to apply when it finishes a log."""


class RedisEventLogs:
    """The event logs of :class:`~nanohubmcp.state.redis_state.RedisState` (module docstring).

    Args:
        guard: the store's client as an async context manager (connection errors become
            :class:`~nanohubmcp.state.errors.StateUnavailable`).
        key: builds a namespaced key from its parts.
        ttl: seconds a log lives after its last write.
        shown: the store's URL without its password, for messages.
    """

    def __init__(self, guard: Guard, key: Callable[..., str], ttl: int, shown: str) -> None:
        self._guard = guard
        self._key = key
        self.ttl = ttl
        self.shown = shown
        self._queue: deque[Entry] = deque()
        self._numbered = 0
        """Entries of sessions' streams of unrelated messages queued so far (:data:`NUMBER`)."""
        self._bytes = LogBytes()
        """Bytes of messages this process wrote to each running stream's log (trimmed past its bound)."""
        self._sized: dict[str, int] = {}
        """Bytes of messages so far of each unfinished POST response log (by key)."""
        self._wake: asyncio.Event | None = None
        self._written: asyncio.Event | None = None
        self._writing = False
        """True while the writer works through the queue (a batch taken from it is not yet written)."""
        self._batch = 0
        """Entries of the batch being written."""
        self._backoff = Backoff()
        self.refused = LossReport(shown, "refused by it and not tried again (an error reply that would come again)")
        """Entries Redis answered with an error reply."""
        self.overflowed = LossReport(shown, f"dropped, the oldest of more than {MAX_QUEUED} waiting for it")
        """Entries dropped from a full queue."""

    def key(self, session_id: str, stream_id: str) -> str:
        """The Redis key of a stream's log."""
        return self._key("ev", session_id, stream_id)

    def append(self, session_id: str, stream_id: str, fields: Fields, principal: str | None = None) -> None:
        """Queue an entry for a stream's log (written in the order queued; never raises); ``principal``: the
        keyed digest of the subject whose session it is (its finished logs are bounded across its sessions too)."""
        if len(self._queue) >= MAX_QUEUED:
            self._queue.popleft()
            self.overflowed.lost(1, "it does not take them as fast as they come")
        key = self.key(session_id, stream_id)
        listed: Listed | None = None
        if stream_id == "g":  # numbered per process, so a reader skips a copy a retried batch wrote (NUMBER)
            self._numbered += 1
            fields = {**fields, NUMBER: str(self._numbered)}
        else:  # a POST response stream's log: its size counts towards the session's bound
            newest = len(fields.get("m", ""))  # (the log holds at most RUNNING_BYTES of it, or its newest entry)
            size = min(self._sized.pop(key, 0) + newest, max(RUNNING_BYTES, newest))
            if fields.get("f") == "1":
                own = None if principal is None else self._principal_keys(principal)
                listed = (self._key("ek", session_id), self._key("eb", session_id), size, key, own)
            else:
                if len(self._sized) >= MAX_SIZED:
                    del self._sized[next(iter(self._sized))]
                self._sized[key] = size
        self._queue.append((key, fields, listed))
        if self._wake is not None:
            self._wake.set()

    @property
    def queued(self) -> int:
        """Entries not yet written (those of a batch being written included)."""
        return len(self._queue) + (self._batch if self._writing else 0)

    async def flush(self) -> None:
        """Return once every entry queued so far is written (the writer's batch in flight too: a flush that
        returned with the queue empty but its last batch not yet written let the store's close cancel that
        write, and a stopping server's last answer never reached the log)."""
        while (self._queue or self._writing) and self._written is not None:
            await self._written.wait()

    def start(self, loop: asyncio.AbstractEventLoop) -> asyncio.Task[None]:
        """Start the process's one writer task on ``loop`` (the caller cancels it to stop)."""
        self._wake = asyncio.Event()
        self._written = asyncio.Event()
        self._writing = False  # (a writer cancelled before: its batch was not written)
        if self._queue:
            self._wake.set()
        return loop.create_task(self._write())

    async def _write(self) -> None:
        """Write the queued entries, in order, until cancelled: a failure of the writer itself is logged and it
        starts again (a writer that ended left every later entry of every session unwritten, and a stop's flush
        waited out its whole bound)."""
        assert self._wake is not None
        while True:
            try:
                await self._write_queued()
            except Exception:  # (not a cancellation: that ends it)
                log.exception("shared state store %s: the event log writer failed; it starts again in %.2g s",
                              self.shown, RETRY_SECONDS)
                await asyncio.sleep(RETRY_SECONDS)
                self._wake.set()

    async def _write_queued(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            self._writing = True
            try:
                while self._queue:
                    batch = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
                    self._batch = len(batch)
                    await self._write_batch(batch)
                    self._batch = 0
                self.overflowed.ended()  # (the writer kept up: what overflows later is a new burst)
            finally:
                self._writing = False
                self._batch = 0
                assert self._written is not None
                self._written.set()
                self._written = asyncio.Event()

    async def _write_batch(self, batch: list[Entry]) -> None:
        """Write ``batch``; what Redis cannot take now goes back to the queue's head, after a pause (:class:`Backoff`);
        what it refuses is dropped and reported (:attr:`refused`)."""
        try:
            failures = await self._send(batch)
        except StateUnavailable:  # unreachable, frozen past the socket timeout, the pool full (StateBusy): later
            self._requeue(batch)
            await asyncio.sleep(self._backoff.next())
            return
        except Exception as exc:  # an error raised whole: a value redis-py will not send (DataError), a reply
            failures = dict.fromkeys(range(len(batch)), exc)
        again = [batch[index] for index, error in failures.items() if _retryable(error)]
        refused = [error for error in failures.values() if not _retryable(error)]
        if refused:
            self.refused.lost(len(refused), f"{type(refused[0]).__name__}: {refused[0]}")
        elif not again:
            self.refused.ended()
        if again:  # a reply saying "later" (LOADING): those entries only, the others are written
            self._requeue(again)
            await asyncio.sleep(self._backoff.next())
        else:
            self._backoff.reset()

    async def _send(self, batch: list[Entry]) -> dict[int, Exception]:
        """Pipeline ``batch``; the error of each entry Redis refused (by its index in ``batch``) with an error reply.

        Raises:
            StateUnavailable: Redis cannot be reached, or this process's pool has no free connection.
        """
        failures: dict[int, Exception] = {}
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            owners: list[int] = []  # the entry of each command
            starts: dict[int, int] = {}  # the number of each entry's XADD among the commands
            trims: list[tuple[int, list[str | int]]] = []
            for index, (key, fields, listed) in enumerate(batch):
                starts[index] = len(owners)
                pipe.xadd(key, fields, maxlen=EVENT_KEEP, approximate=True)
                # A finished response stream is kept only for a client resuming soon after.
                pipe.expire(key, min(self.ttl, FINISHED_KEEP) if fields.get("f") == "1" else self.ttl)
                owners += [index, index]
                if listed is not None:
                    trims.append((index, self._trim_args(*listed)))
                    pipe.evalsha(TRIM_SHA, *trims[-1][1])
                    owners.append(index)
            results = await pipe.execute(raise_on_error=False)
            await self._trim_running(client, batch, [results[starts[index]] for index in range(len(batch))])
            unscripted = False
            for number, (index, result) in enumerate(zip(owners, results, strict=True)):
                if not isinstance(result, Exception):
                    continue
                if _no_script(result):  # a new or flushed Redis
                    unscripted = True
                elif starts[index] == number or not _retryable(result):  # its XADD failed, or a reply that repeats
                    failures.setdefault(index, result)
            if unscripted:
                await self._trim_again(client, [(index, args) for index, args in trims if index not in failures],
                                       failures)
        return failures

    async def _trim_running(self, client: Any, batch: list[Entry], added: list[Any]) -> None:
        """Count the entries of ``batch`` written (``added``: each one's ``XADD`` answer, its id or an error) and
        delete from each log passing its bytes' bound its oldest entries (:class:`~.redis_event_bounds.LogBytes`;
        a trim that fails leaves the log over its bound until its next trim)."""
        trims: dict[str, str] = {}
        for (key, fields, _), entry_id in zip(batch, added, strict=True):
            if not isinstance(entry_id, Exception):
                before = self._bytes.written(key, str(entry_id), len(fields.get("m", "")), last=fields.get("f") == "1")
                if before is not None:
                    trims[key] = before
        if trims:
            pipe = client.pipeline(transaction=False)
            for key, before in trims.items():
                pipe.xtrim(key, minid=before, approximate=False)
                pipe.set(cut_key(key), "1", ex=self.ttl)
            with contextlib.suppress(Exception):  # (the batch is written: a failure here must not write it again)
                await pipe.execute(raise_on_error=False)

    @staticmethod
    async def _trim_again(
        client: Any, trims: list[tuple[int, list[str | int]]], failures: dict[int, Exception]
    ) -> None:
        """Load :data:`TRIM` and run it for ``trims`` (a Redis that had not the script). Their entries are written:
        a reply that repeats is noted in ``failures``; a Redis gone meanwhile leaves their bounds to the next ones
        (trying the batch again would write its entries twice)."""
        try:
            await client.script_load(TRIM)
            for index, args in trims:
                try:
                    await client.evalsha(TRIM_SHA, *args)
                except Exception as exc:
                    if _retryable(exc):
                        raise
                    failures[index] = exc
        except Exception as exc:
            if not _retryable(exc):
                failures.update((index, exc) for index, _ in trims if index not in failures)

    def _requeue(self, entries: list[Entry]) -> None:
        """Put ``entries`` back at the queue's head, in order (the oldest beyond :data:`MAX_QUEUED` dropped)."""
        self._queue.extendleft(reversed(entries))
        over = len(self._queue) - MAX_QUEUED
        if over > 0:
            for _ in range(over):
                self._queue.popleft()
            self.overflowed.lost(over, "it does not take them as fast as they come")

    def _principal_keys(self, principal: str) -> tuple[str, str]:
        """The list and the byte count of ``principal``'s finished logs (``principal``: the keyed digest of its
        subject, :mod:`.principal_digest`)."""
        return self._key("pk", principal), self._key("pb", principal)

    def _trim_args(self, index: str, counter: str, size: int, key: str,
                   own: tuple[str, str] | None) -> list[str | int]:
        keys: list[str | int] = [2, index, counter] if own is None else [4, index, counter, *own]
        return [*keys, f"{size} {key}", size, KEEP_STREAMS, KEEP_BYTES, self.ttl, PRINCIPAL_STREAMS, PRINCIPAL_BYTES]

    def drop(self, pipe: Any, session_id: str) -> None:
        """Have ``pipe`` delete the session's finished logs (the session ended: nobody resumes them now)."""
        pipe.eval(DROP, 2, self._key("ek", session_id), self._key("eb", session_id))

    async def read(self, session_id: str, stream_id: str, after: str, block_ms: int) -> list[tuple[str, Fields]]:
        """Entries after the entry id ``after`` (``"0-0"``: all), waiting up to ``block_ms``."""
        key = self.key(session_id, stream_id)
        async with self._guard() as client:
            found = await client.xread({key: after}, count=BATCH, block=block_ms or None)
        if not found:
            return []
        entries = found.get(key, []) if isinstance(found, dict) else found[0][1]
        if entries and isinstance(entries[0], list) and len(entries) == 1 and isinstance(entries[0][0], list):
            entries = entries[0]  # RESP3 shape: {key: [[entries]]}
        return [(str(entry_id), dict(fields)) for entry_id, fields in entries]

    async def last_id(self, session_id: str, stream_id: str) -> str:
        """The newest entry id of a stream's log (``"0-0"`` when empty)."""
        async with self._guard() as client:
            last = await client.xrevrange(self.key(session_id, stream_id), count=1)
        return str(last[0][0]) if last else "0-0"

    async def first_event(self, session_id: str, stream_id: str) -> str | None:
        """The event id (``e``) of the oldest entry of a stream's log once older ones were deleted for its bytes'
        bound (:mod:`.redis_event_bounds`); ``""`` when none were (or it names none), None when the log is empty."""
        key = self.key(session_id, stream_id)
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.xrange(key, count=1)
            pipe.exists(cut_key(key))
            first, cut = await pipe.execute()
        return (str(first[0][1].get("e", "")) if cut else "") if first else None

    async def numbers_upto(self, session_id: str, stream_id: str, upto: str) -> dict[str, int]:
        """The highest :data:`NUMBER` of each writing process (``o``) among the entries of a stream's log at or before
        the entry id ``upto`` (the newest :data:`LOOK_BACK` of them): what a client that got the log up to ``upto``
        has of each process, so a reader resuming after it skips a copy written later of one of those
        (:mod:`~nanohubmcp.server.wire.delivered`). Read a page at a time, only the numbers kept. An id Redis does
        not take (a client's ``Last-Event-ID``): nothing."""
        from redis.exceptions import ResponseError

        numbers: dict[str, int] = {}
        key, end, seen = self.key(session_id, stream_id), upto, 0
        async with self._guard() as client:
            while seen < LOOK_BACK:
                try:
                    page = await client.xrevrange(key, max=end, min="-", count=min(BATCH, LOOK_BACK - seen))
                except ResponseError as exc:
                    if refusal(exc) is not None:  # (the guard says so)
                        raise
                    return numbers  # a malformed id
                for _, fields in page:
                    process, number = fields.get("o"), str(fields.get(NUMBER, ""))
                    if process is not None and number.isdigit():
                        numbers[str(process)] = max(numbers.get(str(process), 0), int(number))
                seen += len(page)
                if len(page) < BATCH:
                    return numbers
                end = f"({page[-1][0]}"
        return numbers


def _retryable(error: BaseException) -> bool:
    """Whether a write that failed with ``error`` may go through later: Redis unreachable or slow (a connection
    error, a timeout, ``LOADING``), not an error reply that would come again (``OOM``, ``READONLY``, a value
    refused)."""
    from redis.exceptions import ConnectionError, TimeoutError

    return isinstance(error, (ConnectionError, TimeoutError, OSError, StateUnavailable))


def _no_script(error: Exception) -> bool:
    """Whether ``error`` is Redis's "no such script" (the script cache was flushed or is new).
    (``redis`` is imported here, not at the top: this module is imported before the store checks
    that the package is installed, and names the extra if not.)"""
    from redis.exceptions import NoScriptError

    return isinstance(error, NoScriptError)
