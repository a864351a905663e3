"""What passes between the processes sharing a Redis: each one's heartbeat and its pub/sub channels.

- ``proc:<process>``: a heartbeat refreshed every :data:`HEARTBEAT_SECONDS`, so another process can
  tell a stream whose producer died (:meth:`ProcessChannels.alive`); its value is the process's state
  directory's mark (:mod:`.redis_state_dirs`), ``"1"`` before it is set. The same round trip puts back the
  ``requestState`` key the store lost, or finds another (:mod:`.redis_key_watch`);
- ``c:<process>``: the process's own channel: answers to the server→client requests it waits for
  (:mod:`.redis_answers`: relayed there, and kept until the subscription, made again, reads them) and
  invalidations of the session records it caches (:mod:`.redis_sessions`);
- ``bc``: notifications for every process's stateless-era listeners; ``cx``: a client's
  ``notifications/cancelled`` for the process running the request it names, also kept
  :data:`CANCEL_KEEP` seconds in the sorted set ``cxk`` (the cancel's message, scored by when it
  expires; at most :data:`MAX_KEPT_CANCELS`, the newest) for a process whose subscription is being
  made again: it reads them all once it is made, those of requests it runs now and of requests whose
  POST has not reached it yet (the caller keeps the latter until the request starts).

One subscription per process reads the three channels, made again at once when its connection is
lost (the cached session records depend on hearing every invalidation); once Redis confirms it, the
answers and cancels sent while it was being made are read (:meth:`.RedisAnswers.collect`,
:meth:`ProcessChannels.collect_cancels`). What this module does not
own: the connections and their guard (:class:`~nanohubmcp.state.redis_state.RedisState`), the session
records (:mod:`.redis_sessions`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from .errors import StateUnavailable
from .redis_answers import RedisAnswers
from .redis_events import RETRY_SECONDS, Guard
from .redis_key_watch import KeyWatch
from .redis_refusals import refusal
from .redis_sessions import RedisSessions
from .redis_state_dirs import compare_state_dirs, state_dir_mark

log = logging.getLogger("nanohubmcp.state")

HEARTBEAT_SECONDS = 2.0
HEARTBEAT_TTL = 10
"""A process whose heartbeat is older than this many seconds is taken as dead."""
CANCEL_KEEP = 60
"""Seconds a client's cancel is kept for a process whose subscription is being made again."""
MAX_KEPT_CANCELS = 10_000
"""Cancels kept in ``cxk`` at most (the newest): a flood of cancels does not grow the store without bound."""


class ProcessChannels:
    """This process's heartbeat, its subscription to its channels, and what it publishes on them.

    Args:
        guard: the pooled client, guarded (a connection failure raises ``StateUnavailable``).
        key: the key of its parts, under the server's namespace.
        process: this process's id.
        subscriber: makes the subscription's own client (no quiet retry).
        sessions: the session records, told of invalidations and of the subscription's state.
        went_down: called with the error when the subscription's connection is lost, or its
            heartbeat refused (an error reply refusing writes, :mod:`.redis_refusals`).
        closing: true once the state is closing: the subscription ends.
        spawn: runs a coroutine as a task the state cancels when it closes.
        shown: the state URL as logged.
        wrote: called each time a heartbeat is written (the store takes writes).
    """

    def __init__(self, guard: Guard, key: Callable[..., str], process: str, subscriber: Callable[[], Any],
                 sessions: RedisSessions, went_down: Callable[[BaseException], None], closing: Callable[[], bool],
                 spawn: Callable[[Coroutine[Any, Any, None]], None], shown: str,
                 wrote: Callable[[], None] = lambda: None) -> None:
        self._guard = guard
        self._key = key
        self.process = process
        self._subscriber = subscriber
        self._sessions = sessions
        self._wrote = wrote
        self._went_down = went_down
        self._closing = closing
        self._spawn = spawn
        self.shown = shown
        self.answers = RedisAnswers(guard, key, process)
        self.on_broadcast: Callable[[str, dict[str, Any]], None] | None = None
        self.on_cancel: Callable[[str, Any, Any], None] | None = None
        self.key_watch = KeyWatch(key, shown)
        """The ``requestState`` key this process holds, compared with the store's at each heartbeat."""
        self.mark = "1"
        """What the heartbeat holds: this process's state directory's mark (:mod:`.redis_state_dirs`) once set."""

    def answers_to(self, callback: Callable[[str, str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(session id, request id, response)`` when another process relays an answer."""
        self.answers.on_answer = callback

    def broadcasts_to(self, callback: Callable[[str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(method, params)`` for a notification another process broadcast."""
        self.on_broadcast = callback

    def cancels_to(self, callback: Callable[[str, Any, Any], None] | None) -> None:
        """Call ``callback(session id, request id, reason)`` for a cancel posted to another process, and for
        each cancel kept in the store each time the subscription is made (the callback may be told one twice,
        or one of a request long ended)."""
        self.on_cancel = callback

    def share_state_dir(self, directory: str) -> Coroutine[Any, Any, None]:
        """The heartbeat holds ``directory``'s mark from now on; returns the work comparing it once with the live
        peers' (:func:`~.redis_state_dirs.compare_state_dirs`: one WARNING when a peer's state directory is another)."""
        self.mark = state_dir_mark(directory)
        return compare_state_dirs(self._guard, self._key, self.process, directory, HEARTBEAT_TTL, self.shown)

    # -- background work -------------------------------------------------------------------
    async def heartbeat(self) -> None:
        """Refresh this process's heartbeat every :data:`HEARTBEAT_SECONDS`, until cancelled. A store
        unreachable or refusing writes is said by the guard, once; a heartbeat taken tells ``wrote``."""
        while True:
            try:
                async with self._guard() as client:
                    await self._beat(client)
                self._wrote()
            except asyncio.CancelledError:
                raise
            except StateUnavailable:
                pass
            except Exception as exc:  # never let the heartbeat die: others would take this process as dead
                log.warning("shared state store %s: heartbeat failed (%s: %s)", self.shown, type(exc).__name__, exc)
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def listen(self) -> None:
        """Read this process's channels and deliver what arrives, until the state closes."""
        own = self._key("c", self.process)
        channels = [own, self._key("bc"), self._key("cx")]
        # No quiet reconnection: a lost subscription must be noticed at once (the cached session
        # records depend on it, redis_sessions), then it is made again.
        client = self._subscriber()
        pause = 0.05
        while not self._closing():
            pubsub = None
            try:
                # The heartbeat is written before anything is cached: a writer takes a holder
                # without one for gone (redis_sessions).
                await self._first_beat(client)
                pubsub = client.pubsub()
                await pubsub.subscribe(*channels)
                while not self._closing():  # (also if a cancellation was swallowed in the read)
                    message = await pubsub.get_message(timeout=5.0)
                    if message is None:
                        continue
                    if message.get("type") == "message":
                        self._deliver(message["channel"], message["data"])
                    elif message.get("type") == "subscribe" and message.get("channel") == own:
                        self._sessions.subscribed(True)  # Redis confirmed: invalidations reach us
                        self._spawn(self.answers.collect())  # and answers: those relayed meanwhile are read
                        self._spawn(self.collect_cancels())  # and cancels
                        pause = 0.05
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await client.aclose()
                raise
            except Exception as exc:  # a lost connection: subscribe again once Redis is back
                self._sessions.subscribed(False)
                self._went_down(exc)
                await asyncio.sleep(pause)
                pause = RETRY_SECONDS
            finally:
                self._sessions.subscribed(False)
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
        with contextlib.suppress(Exception):  # closing ended the loop (a cancellation may not have reached it)
            await client.aclose()

    async def _first_beat(self, client: Any) -> None:
        """Write the heartbeat on the subscription's ``client``. A store refusing writes (``OOM``) is told
        ``went_down`` (nothing is cached until a heartbeat is taken) and the subscription is made all the
        same: answers and cancels from other processes still arrive."""
        try:
            await self._beat(client)
        except Exception as exc:
            if refusal(exc) is None:
                raise
            self._went_down(exc)

    async def _beat(self, client: Any) -> None:
        """Write the heartbeat (with the state directory's mark, once set: the set of processes that compared
        marks then lives as long as a heartbeat, :mod:`.redis_state_dirs`), and compare the ``requestState`` key
        held with the store's (:mod:`.redis_key_watch`), in one round trip."""
        pipe = client.pipeline(transaction=False)
        pipe.set(self._key("proc", self.process), self.mark, ex=HEARTBEAT_TTL)
        if self.mark != "1":
            pipe.expire(self._key("procs"), HEARTBEAT_TTL)
        watched = self.key_watch.ask(pipe)
        answers = await pipe.execute()
        if watched:
            self.key_watch.heard(answers[-watched:])

    def _deliver(self, channel: str, data: str) -> None:
        try:
            payload = json.loads(data)
        except ValueError:
            return
        if channel.endswith(":bc"):
            if payload.get("o") != self.process and self.on_broadcast is not None:
                self.on_broadcast(str(payload.get("method")), payload.get("params") or {})
        elif channel.endswith(":cx"):
            if payload.get("o") != self.process and self.on_cancel is not None:
                self.on_cancel(str(payload.get("s")), payload.get("r"), payload.get("why"))
        elif not self._sessions.deliver(payload):
            self.answers.heard(payload)

    # -- what is published -----------------------------------------------------------------
    async def alive(self, process: str) -> bool:
        """Whether ``process``'s heartbeat is fresh."""
        async with self._guard() as client:
            return bool(await client.exists(self._key("proc", process)))

    def broadcast(self, method: str, params: dict[str, Any]) -> None:
        """Publish a notification to every other process's stateless-era listeners (not awaited)."""
        payload = json.dumps({"o": self.process, "method": method, "params": params})

        async def send() -> None:
            with contextlib.suppress(StateUnavailable):
                async with self._guard() as client:
                    await client.publish(self._key("bc"), payload)

        self._spawn(send())

    async def cancel(self, session_id: str, request_id: str | int, reason: str | None) -> None:
        """Publish a client's cancel for the process running the request, and keep it :data:`CANCEL_KEEP`
        seconds in ``cxk`` (the same round trip) for a process whose subscription is being made again."""
        payload = json.dumps({"o": self.process, "s": session_id, "r": request_id, "why": reason})
        now = int(time.time() * 1000)  # (the processes' clocks: a second apart is a second more or less kept)
        kept = self._key("cxk")
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.zadd(kept, {payload: now + CANCEL_KEEP * 1000})
            pipe.zremrangebyscore(kept, "-inf", now)
            pipe.zremrangebyrank(kept, 0, -MAX_KEPT_CANCELS - 1)
            pipe.expire(kept, CANCEL_KEEP)
            pipe.publish(self._key("cx"), payload)
            await pipe.execute()

    async def collect_cancels(self) -> None:
        """Read the cancels kept in ``cxk`` (the subscription was just made: one sent meanwhile was heard by
        nobody; the requests it names may run here now or start here later). The store unreachable or busy:
        not read now (a cancel is advice; the next subscription, made once the store is back, reads them)."""
        if self.on_cancel is None:
            return
        with contextlib.suppress(StateUnavailable):
            async with self._guard() as client:
                kept = await client.zrangebyscore(self._key("cxk"), int(time.time() * 1000), "+inf")
            for data in kept:
                self._deliver(self._key("cx"), data)
