"""Session records in Redis, with a per-process read cache that stays correct across processes.

A request naming a session needs its record (principal, version, capabilities, log level,
subscriptions, whether it still exists). Asking Redis on every request costs a round trip
(about as much CPU as the rest of a small ``tools/call``); most requests change nothing. So a
process keeps the records it loaded, and uses one without asking Redis while both hold:

- its **lease** has not run out: :data:`LEASE_SECONDS` from the moment the load was sent (a
  process that misses an invalidation, because its subscription broke or its loop stalled, is
  wrong for at most that long — and a writer waits that long before answering, below);
- no **invalidation** came for it. Every process that caches a record is listed in the
  session's holders set (``h:<session>``, added before the record is read). A process that
  changes or deletes a record (a ``logging/setLevel``, a subscription, ``notifications/initialized``,
  DELETE) writes it, reads the holders, publishes an invalidation to each on its channel, and
  waits until each has dropped its copy and said so (or, for a holder that cannot be reached
  but may be alive, until the lease of any copy it holds has run out) before its own request
  is answered.

So what a request changed in its session, and a DELETE, is seen by the next request on any process
(the write and every invalidation are done before the response leaves; a legacy SSE stream's end
is stored just after it closes). A record loaded
while an invalidation for it was on its way is used for the one request that loaded it and not
kept. Nothing of one principal reaches another: the cache is per session, a request is
still checked against the record's principal, and the principal of a session never changes.

A session is named here by its key (``session_key`` of its id, 64 hex digits), never its id: the record
(``s:<key>``), its holders (``h:<key>``), the invalidations published. Without authorization an id is the
session's credential, and a Redis with persistence writes what it holds to disk; the record holds the key,
and a process learns the id from the request naming it.

The idle clock: a load does not restart it; a request found to be its principal's (the caller compares, then
calls :meth:`RedisSessions.used`) is noted, and the noted sessions' clocks are restarted together once per lease
(one pipelined ``EXPIRE`` each), so a session still lives ``idle_seconds`` after its last use, and a request of
another principal naming it keeps it alive no longer. Beside the record,
``k:<key>`` says the session lives, for the records that name a session by its key (jobs, provenance);
it is written, restarted and deleted with the record.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from .errors import StateUnavailable, spawn_tolerant

log = logging.getLogger("nanohubmcp.state")

LEASE_SECONDS = 1.0
"""How long a cached record is used without asking Redis (the longest a writer waits for a
holder it cannot reach)."""
MAX_CACHED = 10_000
"""Records kept per process at most (the least recently loaded go first)."""
Guard = Callable[[], contextlib.AbstractAsyncContextManager[Any]]


class _Cached:
    __slots__ = ("record", "until")

    def __init__(self, record: dict[str, Any], until: float) -> None:
        self.record = record
        self.until = until


class RedisSessions:
    """The session records of :class:`~nanohubmcp.state.redis_state.RedisState` (module docstring).

    Args:
        guard: the store's client as an async context manager (connection errors become
            :class:`~nanohubmcp.state.errors.StateUnavailable`).
        key: builds a namespaced key from its parts.
        process: this process's id (its channel is ``c:<process>``).
        ttl: seconds a session lives after its last use.
        lease: :data:`LEASE_SECONDS`; 0 turns the cache off (every request loads).
    """

    def __init__(
        self, guard: Guard, key: Callable[..., str], process: str, ttl: int, *, lease: float | None = None
    ) -> None:
        self._guard = guard
        self._key = key
        self.process = process
        self.ttl = ttl
        lease = LEASE_SECONDS if lease is None else lease
        self.lease = lease if ttl > 2 * lease else 0.0
        self.listening = False
        """Whether this process's channel is subscribed (nothing is cached while it is not)."""
        self._down = False
        self._cache: dict[str, _Cached] = {}
        self._listed: dict[str, float] = {}
        """When this process last listed itself as a holder of each session (``h:<session>``)."""
        self._epoch = 0
        self._used: set[str] = set()
        self._acks: dict[str, tuple[set[str], asyncio.Event]] = {}
        self._loading: dict[str, tuple[int, asyncio.Future[dict[str, Any] | None]]] = {}
        """Loads on their way, by session id: the epoch when each was sent, and its record to come."""
        self._tasks: set[asyncio.Task[Any]] = set()

    def _alive(self, session_id: str) -> str:
        """The key that says a session lives: stored records name their session by its key (a job's, a
        provenance record's) and ask it whether the session ended (``RedisJobBackend.session_gone``). It
        lives and dies with ``s:<session>``."""
        return self._key("k", session_id)

    # -- reading -----------------------------------------------------------------------------
    def held(self, session_id: str) -> dict[str, Any] | None:
        """The record of ``session_id`` from this process's copy, while its lease lasts; None: :meth:`load` it."""
        cached = self._cache.get(session_id)
        if cached is None or asyncio.get_running_loop().time() >= cached.until:
            return None
        return cached.record

    def used(self, session_id: str) -> None:
        """A request of the session's principal used it: its idle clock restarts with the next
        :meth:`refresh_clocks` (within a lease; no round trip now)."""
        self._used.add(session_id)

    async def load(self, session_id: str) -> dict[str, Any] | None:
        """The record of ``session_id`` (its idle clock not restarted: :meth:`used`), or None when gone."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        cached = self._cache.get(session_id)
        if cached is not None:
            if now < cached.until:
                return cached.record
            del self._cache[session_id]
        # One load per session at a time: requests arriving while one is on its way take its
        # record, unless an invalidation came since it was sent (the record may predate a write
        # whose answer a client has seen); a lease running out under many connections at once
        # then costs one GETEX, not one per connection.
        loading = self._loading.get(session_id)
        if loading is not None and loading[0] == self._epoch:
            try:
                return await asyncio.shield(loading[1])
            except asyncio.CancelledError:
                cancelling = getattr(asyncio.current_task(), "cancelling", None)  # Python 3.11+
                if not loading[1].cancelled() or (cancelling is not None and cancelling()):
                    raise  # this request itself was cancelled
            return await self.load(session_id)  # the request that sent it went away: load anew
        future: asyncio.Future[dict[str, Any] | None] = loop.create_future()
        self._loading[session_id] = (self._epoch, future)
        try:
            record = await self._load(session_id, now)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: only joiners, if any, raise it
            raise
        except BaseException:
            future.cancel()
            raise
        else:
            future.set_result(record)
            return record
        finally:
            if self._loading.get(session_id, (0, None))[1] is future:
                del self._loading[session_id]

    async def _load(self, session_id: str, now: float) -> dict[str, Any] | None:
        caching = self.lease > 0 and self.listening and not self._down
        epoch = self._epoch
        listed = self._listed.get(session_id)
        async with self._guard() as client:
            if caching and (listed is None or now - listed > self.ttl / 2):
                # Listed as a holder before reading: a writer after the read sees us. The
                # listing lasts ttl; renewed at half of it (a reload alone costs a GETEX).
                pipe = client.pipeline(transaction=False)
                pipe.sadd(self._key("h", session_id), self.process)
                pipe.expire(self._key("h", session_id), self.ttl)
                pipe.get(self._key("s", session_id))
                raw = (await pipe.execute())[2]
                self._listed[session_id] = now
            else:
                raw = await client.get(self._key("s", session_id))
        if raw is None:
            return None
        record = json.loads(raw)
        if not isinstance(record, dict):
            return None
        if caching and epoch == self._epoch:
            self._keep(session_id, record, now + self.lease)
        return record

    def _keep(self, session_id: str, record: dict[str, Any], until: float) -> None:
        if len(self._cache) >= MAX_CACHED and session_id not in self._cache:
            self._cache.pop(next(iter(self._cache)))
        if len(self._listed) > MAX_CACHED:
            self._listed.pop(next(iter(self._listed)))
        self._cache[session_id] = _Cached(record, until)

    # -- writing -----------------------------------------------------------------------------
    async def save(
        self,
        record: dict[str, Any],
        subscribed: set[str],
        unsubscribed: set[str],
        subscription: Callable[[str, str], tuple[str, str]],
        count: Callable[[Any], None] | None = None,
    ) -> list[str]:
        """Store ``record`` and its subscription changes; every other copy is dropped first.

        ``subscription(uri, session_id)``: the set holding that subscription and its member in it.

        ``count``: the session is new: adds to the pipeline the count of its principal's sessions
        (one command, :meth:`.redis_session_cap.SessionCap.count`), whose reply, the keys of the
        principal's sessions past the cap, is returned (the caller ends them); else [].
        """
        session_id = str(record["key"])
        now = asyncio.get_running_loop().time()
        caching = self.lease > 0 and self.listening and not self._down
        epoch = self._epoch
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.set(self._key("s", session_id), json.dumps(record), ex=self.ttl)
            pipe.set(self._alive(session_id), "1", ex=self.ttl)
            if count is not None:
                count(pipe)
            for uri in subscribed:
                key, member = subscription(uri, session_id)
                pipe.sadd(key, member)
                pipe.expire(key, self.ttl)
            for uri in unsubscribed:
                pipe.srem(*subscription(uri, session_id))
            pipe.smembers(self._key("h", session_id))  # after the write: whoever read before is listed
            if caching:
                pipe.sadd(self._key("h", session_id), self.process)
                pipe.expire(self._key("h", session_id), self.ttl)
            done = await pipe.execute()
        if caching:
            self._listed[session_id] = now
        holders = done[-3] if caching else done[-1]
        await self._invalidate(session_id, {str(h) for h in holders} - {self.process})
        if caching and epoch == self._epoch:
            self._keep(session_id, record, now + self.lease)
        else:
            self._cache.pop(session_id, None)
        return [str(gone) for gone in done[2]] if count is not None else []  # after the two SETs

    async def delete(self, session_id: str, write: Callable[[Any], None]) -> None:
        """Delete the record (``write`` adds the caller's own commands to the pipeline)."""
        self._cache.pop(session_id, None)
        self._listed.pop(session_id, None)
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.delete(self._key("s", session_id), self._alive(session_id))
            write(pipe)
            pipe.smembers(self._key("h", session_id))
            pipe.delete(self._key("h", session_id))
            done = await pipe.execute()
        await self._invalidate(session_id, {str(h) for h in done[-2]} - {self.process})

    async def _invalidate(self, session_id: str, holders: set[str]) -> None:
        """Tell ``holders`` to drop their copy of ``session_id``; return once each did, or
        once no copy it may hold can still be used."""
        if not holders:
            return
        nonce = secrets.token_hex(6)
        message = json.dumps({"i": session_id, "w": self.process, "n": nonce})
        acked: set[str] = set()
        heard = asyncio.Event()
        self._acks[nonce] = (acked, heard)
        order = sorted(holders)
        try:
            async with self._guard() as client:
                pipe = client.pipeline(transaction=False)
                for holder in order:
                    pipe.publish(self._key("c", holder), message)
                    pipe.exists(self._key("proc", holder))
                done = await pipe.execute()
            waiting, unreachable = set(), False
            for holder, receivers, alive in zip(order, done[::2], done[1::2], strict=True):
                if receivers:
                    waiting.add(holder)
                elif alive:
                    unreachable = True  # alive but not listening: its copy runs out with its lease
                # else: no heartbeat for seconds, so any copy it holds is long out of lease. It
                # stays listed (and the listing lasts until the set expires): a process that was
                # only stalled counts on its listing.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.lease * 1.1 + 0.05
            while not waiting <= acked and not unreachable:
                heard.clear()
                try:
                    await asyncio.wait_for(heard.wait(), max(0.0, deadline - loop.time()))
                except asyncio.TimeoutError:
                    unreachable = True
            if unreachable:
                await asyncio.sleep(max(0.0, deadline - loop.time()))
        finally:
            self._acks.pop(nonce, None)

    # -- messages from other processes ---------------------------------------------------------
    def deliver(self, payload: dict[str, Any]) -> bool:
        """Handle an invalidation or its acknowledgement sent to this process; False when
        ``payload`` is neither."""
        if "i" in payload:
            self._epoch += 1
            self._cache.pop(str(payload["i"]), None)
            ack = json.dumps({"a": payload.get("n"), "o": self.process})
            self._spawn(self._publish(self._key("c", str(payload.get("w"))), ack))
            return True
        if "a" in payload:
            entry = self._acks.get(str(payload["a"]))
            if entry is not None:
                acked, heard = entry
                acked.add(str(payload.get("o")))
                heard.set()
            return True
        return False

    def subscribed(self, listening: bool) -> None:
        """This process's channel was (re)subscribed, or lost: either way a copy may have
        missed an invalidation, so none is kept."""
        self.listening = listening
        self._epoch += 1
        self._cache.clear()
        self._listed.clear()  # a writer may have taken this process for gone meanwhile

    def went_down(self) -> None:
        """The store failed a command: nothing is cached until it answers again (a request
        then needs the store, and is answered 503 while it is away)."""
        self._down = True
        self.subscribed(self.listening)

    def came_back(self) -> None:
        """The store answers again."""
        self._down = False

    async def _publish(self, channel: str, message: str) -> None:
        async with self._guard() as client:
            await client.publish(channel, message)

    # -- the idle clock ----------------------------------------------------------------------
    async def refresh_clocks(self) -> None:
        """Restart the idle clock of the sessions served from the cache since the last call."""
        used, self._used = self._used, set()
        if not used:
            return
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            for session_id in used:
                pipe.expire(self._key("s", session_id), self.ttl)
                pipe.expire(self._alive(session_id), self.ttl)
            await pipe.execute()

    async def keep_clocks(self) -> None:
        """Run :meth:`refresh_clocks` once per lease, for ever (a background task); records
        whose lease ran out are let go then."""
        while True:
            await asyncio.sleep(max(self.lease, 0.5))
            now = asyncio.get_running_loop().time()
            for session_id in [s for s, cached in self._cache.items() if cached.until <= now]:
                del self._cache[session_id]
            for session_id in [s for s, at in self._listed.items() if now - at > self.ttl / 2]:
                del self._listed[session_id]
            with contextlib.suppress(StateUnavailable):
                await self.refresh_clocks()

    def _spawn(self, work: Any) -> None:
        spawn_tolerant(self._tasks, work)
