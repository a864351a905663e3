"""Which server processes sharing a Redis are alive, and which start of each: their heartbeats.

The Redis side of the job store's runner locks (:mod:`nanohubmcp.server.jobs.runs`; one machine's are
lock files in the state directory): ``runner:<token>`` under the server's namespace, refreshed by each
live process, naming its current start. Nothing here reads or writes a job record (:mod:`.redis_jobs`).
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from .redis_jobs import sync_client
from .url import StateURL

RUNNER_TTL = 10
"""Seconds a process's heartbeat lasts: a process not heard from for that long is dead."""
RUNNER_BEAT = 3.0
"""Seconds between heartbeats."""
RUNNER_RETRY = 0.5
"""Seconds between heartbeats while Redis cannot be reached."""


class RedisRunners:
    """Which server processes are alive, by heartbeats in Redis (the lock files of one machine
    cannot tell a process on another): each process refreshes ``runner:<token>`` every
    :data:`RUNNER_BEAT` seconds; a process gone for :data:`RUNNER_TTL` seconds is dead. The
    heartbeat's value is the runner token of the process's current start, so another process
    tells a job of a run still serving from one of an earlier start of a live process."""

    def __init__(self, url: StateURL, name: str) -> None:
        self.shown = url.shown
        self.prefix = f"nanohubmcp:{name}:runner:"
        self._redis = sync_client(url)
        self._stop = threading.Event()
        self._token: str | None = None
        self._run = [""]  # shared with the beating thread, which holds no reference to self

    def claim(self, token: str, run: str) -> None:
        """Beat for the process ``token`` (its current start ``run``) for the life of this process."""
        key = self.prefix + token
        self._token = token
        self._run[0] = run
        stop, client, current = self._stop, self._redis, self._run

        def beat() -> None:
            while not stop.is_set():
                try:
                    client.set(key, current[0], ex=RUNNER_TTL)
                    pause = RUNNER_BEAT
                except Exception:  # Redis away: beat again soon, lest the process look dead once it is back
                    pause = RUNNER_RETRY
                stop.wait(pause)

        threading.Thread(target=beat, name="nanohubmcp-runner-beat", daemon=True).start()
        weakref.finalize(self, stop.set)

    def started(self, run: str) -> None:
        """The process started its server again: ``run`` is its current start from now on."""
        self._run[0] = run
        if self._token is not None:
            with contextlib.suppress(Exception):
                self._redis.set(self.prefix + self._token, run, ex=RUNNER_TTL)

    def alive(self, token: str | None) -> bool:
        if not token:
            return False
        try:
            return bool(self._redis.exists(self.prefix + token))
        except Exception:
            return True  # cannot tell: never fail a job on a guess

    def serving(self, process: str, run: str) -> bool:
        """True while the process ``process`` is alive and ``run`` is its current start."""
        try:
            current = self._redis.get(self.prefix + process)
        except Exception:
            return True  # cannot tell: the job stays its session's
        return bool(current == run)

    def release(self) -> None:
        self._stop.set()
        if self._token is not None:
            with contextlib.suppress(Exception):
                self._redis.delete(self.prefix + self._token)
