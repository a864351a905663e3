"""Shared state in Redis (the ``redis`` package's asyncio client; imported only for a Redis URL).

Keys, all under ``nanohubmcp:<server name>:`` so two servers on one Redis never read each other (``<session>``:
a session's key, the SHA-256 of its id: Redis holds no session id):

- ``s:<session>``: the session record (JSON), expiring ``idle_seconds`` after its last use; ``h:<session>``: the
  processes that may hold a copy (:mod:`~nanohubmcp.state.redis_sessions`: what is cached, and why it stays right);
- ``ev:<session>:<stream>``: a stream's event log, bounded in entries and bytes, expiring with the session
  (:mod:`.redis_events`; ``ev:<session>:<stream>:cut`` once it lost messages to the bytes': :mod:`.redis_event_bounds`);
- ``pr:<keyed digest of the principal>``: the principal's sessions (a principal is stored only as the HMAC of its
  subject: :mod:`.principal_digest`), scored by when each was opened (the cap of sessions per principal across
  processes: :mod:`~nanohubmcp.state.redis_session_cap`);
- ``sub:<sha-256 of the uri in the form URIs are compared in>``: the sessions subscribed to a resource, each member
  ``<session> <the uri as that session subscribed it>`` (URIs compare as ``resources/read`` compares them,
  :func:`~nanohubmcp.protocol.uris.comparison_form`, and a notification names the URI as subscribed);
  ``listeners``: sessions reading unrelated messages (a sorted set scored by expiry time); ``rd:<session>``: the
  readers of the session's unrelated-message stream open now (:mod:`~nanohubmcp.state.redis_readers`);
- ``p:<session>:<request>``: which process waits for a server→client request's answer, until its timeout, and
  ``a:<session>:<request>`` the answer, kept as long (:mod:`~nanohubmcp.state.redis_answers`); answers, and
  invalidations of cached session records, travel on the process's channel ``c:<process>`` (Redis pub/sub);
- ``proc:<process>``: a heartbeat refreshed every :data:`~nanohubmcp.state.redis_channels.HEARTBEAT_SECONDS`, so
  another process can tell a stream whose producer died; ``procs``: who compared state_dirs (:mod:`.redis_state_dirs`);
- ``wk:<process>``: the wake log of the process's one blocking read of event logs (:mod:`.redis_reads`);
- ``rs:key`` and ``rs:used:<id>``: the stateless era's ``requestState`` key and used ids (:mod:`.redis_request_state`);
- channel ``bc``: notifications for every process's stateless-era listeners; channel ``cx``: a client's
  ``notifications/cancelled`` for the process running the request it names, kept a minute in the
  sorted set ``cxk`` (:mod:`~nanohubmcp.state.redis_channels`).

Connections (made by :mod:`~nanohubmcp.state.redis_pool`): commands go through one pool (redis-py's,
100 connections unless the URL's ``max_connections`` says otherwise; a request finding them all in use
waits up to :data:`~.redis_pool.POOL_WAIT_SECONDS` for one, then is answered 503 "busy",
:class:`~nanohubmcp.state.errors.StateBusy`, which is not an outage; a clean-up delete nobody waits for
waits instead, however long, :func:`~nanohubmcp.state.errors.spawn_cleanup`); besides it a process holds two
connections of its own: its pub/sub subscription and its one blocking ``XREAD`` for every stream read from a log
(:mod:`~nanohubmcp.state.redis_reads`), however many streams are open. Writes to event logs are
queued and pipelined in order by one task per process (:mod:`~nanohubmcp.state.redis_events`).
An unreachable Redis raises :class:`~nanohubmcp.state.errors.StateUnavailable` (503), logged once when it goes and
once when it is back (queued log entries wait and are written then); so does a Redis refusing writes (``OOM``,
``READONLY``, ``MISCONF``, ``BUSY``, ``MASTERDOWN``, ``NOREPLICAS``: :mod:`~nanohubmcp.state.redis_refusals`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from ..errors import ConfigurationError
from ..protocol.uris import comparison_form
from .base import CLOSE_FLUSH_SECONDS, Fields, Opened
from .errors import StateBusy, StateUnavailable
from .redis_channels import ProcessChannels
from .redis_events import EVENT_KEEP, RedisEventLogs
from .redis_readers import StreamReaders
from .redis_reads import SharedReads
from .redis_refusals import Refusals, refusal
from .redis_request_state import RedisRequestState
from .redis_session_cap import SessionCap
from .redis_sessions import RedisSessions
from .url import StateURL

try:
    import redis.asyncio as aioredis
    import redis.exceptions as redis_errors

    from .redis_pool import connect, connect_sync
except ImportError:  # pragma: no cover - the message names the extra
    aioredis = None  # type: ignore[assignment]
    redis_errors = None  # type: ignore[assignment]

log = logging.getLogger("nanohubmcp.state")
BUSY_LOG_SECONDS = 60.0
"""A full connection pool is logged at most once in this many seconds."""
TASKS_END_SECONDS = 1.0
"""How long closing waits for the background tasks it cancelled (the subscription's read, the heartbeat)."""


class RedisState:
    """:class:`~nanohubmcp.state.base.SharedState` in Redis.

    Args:
        url: a ``redis://``, ``rediss://`` or ``unix://`` state URL (may carry a password).
        name: the server's name: the key namespace.
        idle_seconds: how long a session and its logs live after their last use.

    Raises:
        ConfigurationError: the ``redis`` package is not installed.
    """

    def __init__(self, url: StateURL, name: str, *, idle_seconds: float) -> None:
        if aioredis is None:
            raise ConfigurationError(f"state_url {url.shown} needs the redis package: pip install 'nanohub-mcp[redis]'")
        self.url = url
        self.shown = url.shown
        self.prefix = f"nanohubmcp:{name}:"
        self.ttl = max(1, int(idle_seconds))
        self.process = secrets.token_hex(8)
        self.down = False
        self.refusals = Refusals(f"shared state store {self.shown}")
        self._busy_logged = -BUSY_LOG_SECONDS
        self._client: Any = None
        self._reader: Any = None
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []
        self.sessions = RedisSessions(self._guard, self._key, self.process, self.ttl)
        self.cap = SessionCap(self._key, self._key("s", ""))
        self.events = RedisEventLogs(self._guard, self._key, self.ttl, self.shown)
        self.readers = StreamReaders(self._guard, self._key, self.process, self.ttl)
        self.reads = SharedReads(self._reader_guard, self._guard, self._key("wk", self.process))
        self.request_state = RedisRequestState(functools.partial(connect_sync, url.url), self._key, self._went_down,
                                               self._refused, self.shown)
        subscriber = functools.partial(connect, url.url, retries=0)  # no quiet retry: a lost subscription is noticed
        self.channels = ProcessChannels(self._guard, self._key, self.process, subscriber, self.sessions,
                                        self._went_down, lambda: self._closing, self._spawn, self.shown,
                                        self._wrote)

    # -- connection ------------------------------------------------------------------------
    def answers_to(self, callback: Callable[[str, str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(session id, request id, response)`` when another process relays an answer."""
        self.channels.answers_to(callback)

    def broadcasts_to(self, callback: Callable[[str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(method, params)`` for a notification another process broadcast."""
        self.channels.broadcasts_to(callback)

    def cancels_to(self, callback: Callable[[str, Any, Any], None] | None) -> None:
        """Call ``callback(session id, request id, reason)`` for a cancel posted to another process."""
        self.channels.cancels_to(callback)

    def start(self, loop: asyncio.AbstractEventLoop, state_dir: str | None = None) -> None:
        self._client = connect(self.url.url, waits=True)
        # No quiet retry: the reading task sends its XREAD again itself (and ends at close()).
        self._reader = connect(self.url.url, retries=0, single=True)
        self._tasks.append(self.events.start(loop))
        self._tasks.append(self.reads.start(loop))
        if state_dir is not None:  # its mark rides the heartbeat, compared with the live peers' once
            self._tasks.append(loop.create_task(self.channels.share_state_dir(state_dir)))
        for work in (self.channels.heartbeat, self.channels.listen, self.sessions.keep_clocks):
            self._tasks.append(loop.create_task(work()))

    async def close(self, flush: float = CLOSE_FLUSH_SECONDS) -> None:
        try:
            if self._tasks and flush > 0:  # (started: its writer runs) the last answers reach the logs first
                await self._flush_before_close(flush)
        finally:  # (a close cancelled meanwhile still ends the background work)
            self._closing = True
            self.reads.stop()
            for task in self._tasks:
                task.cancel()
        if self._reader is not None:  # its blocking read ends now, not when it times out
            with contextlib.suppress(Exception):
                await self._reader.connection_pool.disconnect()
        if self._tasks:
            # Waited for, not awaited: a cancelled read inside redis-py may be swallowed (its task runs on
            # to its next read), and awaiting it under suppress(BaseException) swallowed this close's own
            # cancellation too: the stopping server's drain then waited for ever (a --workers worker was
            # left serving after its parent exited).
            await asyncio.wait(self._tasks, timeout=TASKS_END_SECONDS)
        self._tasks.clear()
        self.request_state.close()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.delete(self._key("proc", self.process))
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader.aclose()
            self._reader = None

    async def _flush_before_close(self, seconds: float) -> None:
        """Wait, ``seconds`` at most, for the entries queued for the event logs to be written; say how many
        were not (a Redis that does not answer)."""
        try:
            await asyncio.wait_for(self.events.flush(), seconds)
        except asyncio.TimeoutError:
            log.warning("shared state store %s: %d message(s) for the event logs not written within %.2g s of "
                        "closing; a client resuming a stream will not get them", self.shown, self.events.queued,
                        seconds)

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def _sub_key(self, uri: str) -> str:
        """The subscribers of ``uri`` (in any spelling: ``data://%6Cab`` is ``data://lab``), keyed by its
        comparison form's digest (a URI is client input of any length)."""
        return self._key("sub", hashlib.sha256(comparison_form(uri).encode("utf-8", "surrogatepass")).hexdigest())

    def _subscription(self, uri: str, session_id: str) -> tuple[str, str]:
        """The set and its member for ``session_id``'s subscription to ``uri`` as it sent it."""
        return self._sub_key(uri), f"{session_id} {uri}"  # a session id has no space (token_urlsafe)

    @property
    def refusing(self) -> str | None:
        """The store's last refusal of a write (``"OOM command not allowed ..."``,
        :mod:`.redis_refusals`) while it lasts: from the refusal until a write (the next heartbeat,
        every :data:`~.redis_channels.HEARTBEAT_SECONDS`) is taken; None while writes are taken."""
        return self.refusals.refusing

    def _guard(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """The pooled client; a connection failure becomes StateUnavailable (logged once), so does an error reply
        refusing writes (:mod:`.redis_refusals`), a full pool StateBusy."""
        return self._guarded(self._client)

    def _reader_guard(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """The connection of the process's one blocking read (:mod:`.redis_reads`), guarded alike."""
        return self._guarded(self._reader)

    @contextlib.asynccontextmanager
    async def _guarded(self, client: Any) -> AsyncIterator[Any]:
        if client is None:
            raise StateUnavailable("The server's shared state store is not connected yet; retry shortly")
        try:
            yield client
        except redis_errors.MaxConnectionsError:
            # Every pooled connection is in use: this process is busy, the store is up.
            self._busy()
            raise StateBusy() from None
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.BusyLoadingError, OSError) as exc:
            self._went_down(exc)
            raise StateUnavailable() from None
        except redis_errors.ResponseError as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            raise self._refused(reason) from None
        self._came_back()

    def _busy(self) -> None:
        now = time.monotonic()
        if now - self._busy_logged >= BUSY_LOG_SECONDS:
            self._busy_logged = now
            log.warning("shared state store %s: all %s connections of this process's pool are in use; answering "
                        "503 (busy) to requests that need one (the state URL's max_connections sets the pool's size)",
                        self.shown, getattr(self._client.connection_pool, "max_connections", "?"))

    def _went_down(self, exc: BaseException) -> None:
        if self._closing:  # its own connections, closed by close()
            return
        reason = refusal(exc)
        if reason is not None:  # an error reply refusing writes: the store answers
            self._refused(reason)
            return
        self.sessions.went_down()
        if not self.down:
            self.down = True
            log.warning(
                "shared state store %s unreachable (%s: %s); answering 503 until it is back",
                self.shown, type(exc).__name__, exc)

    def _came_back(self) -> None:
        if self.down:
            if self.refusals.refusing is None:
                self.sessions.came_back()
            self.down = False
            log.warning("shared state store %s reachable again", self.shown)

    def _refused(self, reason: str) -> StateUnavailable:
        """The store refused a write with ``reason``: nothing is cached meanwhile (this process's
        heartbeat may lapse, and a cached copy is listed by a write); the error to raise."""
        if not self._closing:
            self.sessions.went_down()
        return self.refusals.refused(reason)

    def _wrote(self) -> None:
        """A write was taken (the heartbeat): a refusal of writes, if any, has ended."""
        if self.refusals.wrote() and not self.down:
            self.sessions.came_back()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as one of the tasks closing cancels (and forget the ended ones)."""
        self._tasks = [*(t for t in self._tasks if not t.done()), asyncio.get_running_loop().create_task(work)]

    # -- sessions ----------------------------------------------------------------------------
    def held_session(self, session_id: str) -> dict[str, Any] | None:
        return self.sessions.held(session_id)

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        return await self.sessions.load(session_id)

    def used_session(self, session_id: str) -> None:
        self.sessions.used(session_id)

    async def save_session(
        self, record: dict[str, Any], subscribed: set[str], unsubscribed: set[str], *, opened: Opened | None = None
    ) -> list[str]:
        count = None if opened is None else functools.partial(self.cap.count, session_id=record["key"], opened=opened)
        return await self.sessions.save(record, subscribed, unsubscribed, self._subscription, count)

    async def delete_session(self, session_id: str, subscriptions: set[str], principal: str | None = None) -> None:
        key = self.events.key(session_id, "g")

        def write(pipe: Any) -> None:
            if principal is not None:
                self.cap.forget(pipe, session_id, principal)
            for uri in subscriptions:
                pipe.srem(*self._subscription(uri, session_id))
            pipe.zrem(self._key("listeners"), session_id)
            pipe.delete(self.readers.key(session_id))
            self.events.drop(pipe, session_id)
            pipe.xadd(key, {"x": "1", "o": self.process}, maxlen=EVENT_KEEP, approximate=True)
            pipe.expire(key, 60)

        await self.sessions.delete(session_id, write)

    # -- event logs --------------------------------------------------------------------------
    def append(self, session_id: str, stream_id: str, fields: Fields, principal: str | None = None) -> None:
        self.events.append(session_id, stream_id, fields, principal)

    async def flush(self) -> None:
        await self.events.flush()

    async def read(self, session_id: str, stream_id: str, after: str, block_ms: int) -> list[tuple[str, Fields]]:
        if block_ms > 0:  # a waiting read: on the process's one shared XREAD, not a pooled connection
            return await self.reads.read(self.events.key(session_id, stream_id), after, block_ms)
        return await self.events.read(session_id, stream_id, after, block_ms)

    async def last_id(self, session_id: str, stream_id: str) -> str:
        return await self.events.last_id(session_id, stream_id)

    async def numbers_upto(self, session_id: str, stream_id: str, upto: str) -> dict[str, int]:
        return await self.events.numbers_upto(session_id, stream_id, upto)

    async def first_event(self, session_id: str, stream_id: str) -> str | None:  # (the oldest entry's event id)
        return await self.events.first_event(session_id, stream_id)

    async def alive(self, process: str) -> bool:
        return await self.channels.alive(process)

    # -- listeners and subscribers -----------------------------------------------------------
    async def add_listener(self, session_id: str) -> None:
        key = self._key("listeners")
        now = time.time()
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.zadd(key, {session_id: now + self.ttl})
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.expire(key, self.ttl)
            pipe.expire(self.readers.key(session_id), self.ttl)  # (a reader's refresh: it still reads)
            await pipe.execute()

    async def reader_started(self, session_id: str, reader: str) -> None:
        await self.readers.started(session_id, reader)

    def reader_ended(self, session_id: str, reader: str) -> None:
        self.readers.ended(session_id, reader)

    async def has_reader(self, session_id: str) -> bool:
        return await self.readers.any(session_id)

    async def listeners(self) -> list[str]:
        async with self._guard() as client:
            return [str(s) for s in await client.zrangebyscore(self._key("listeners"), time.time(), "+inf")]

    async def subscribers(self, uri: str) -> list[tuple[str, str]]:
        async with self._guard() as client:
            members = await client.smembers(self._sub_key(uri))
        found = []
        for member in members:
            session_id, spaced, subscribed = str(member).partition(" ")
            found.append((session_id, subscribed if spaced else uri))  # (a bare id: stored before 1.0's fold)
        return found

    def broadcast(self, method: str, params: dict[str, Any]) -> None:
        self.channels.broadcast(method, params)

    async def cancel(self, session_id: str, request_id: str | int, reason: str | None) -> None:
        await self.channels.cancel(session_id, request_id, reason)

    # -- server→client requests --------------------------------------------------------------
    async def put_pending(self, session_id: str, request_id: str, ttl: float) -> None:
        await self.channels.answers.put(session_id, request_id, ttl)

    async def drop_pending(self, session_id: str, request_id: str) -> None:
        await self.channels.answers.drop(session_id, request_id)

    async def answer(self, session_id: str, request_id: str, response: dict[str, Any]) -> bool:
        return await self.channels.answers.relay(session_id, request_id, response)

    # -- the stateless era -------------------------------------------------------------------
    def consume_nonce(self, nonce: str, expires: float) -> bool:
        """Mark a ``requestState`` nonce used until ``expires`` (epoch seconds); False when it was.

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        return self.request_state.consume_nonce(nonce, expires)

    def request_state_key(self) -> bytes:
        return self.request_state.key()

    def keep_request_state_key(self, key: bytes, changed: Callable[[bytes], None]) -> None:
        self.channels.key_watch.keep(key, changed)
