"""``GET /healthz`` and ``GET /readyz``: what a load balancer's or Kubernetes' probe asks.

Both answer without a token and whatever the ``Host`` or ``Origin`` (a probe names the pod's
address, not the public name): their answer is one word of plain text that says nothing a
client could use — no name, version, session or tool. ``/healthz`` (liveness): 200 ``ok`` while
this process's event loop answers. ``/readyz`` (readiness): 200 ``ready``, or 503 with
``Retry-After`` while the shared state store (``state_url``) is unreachable or refuses writes
(``OOM`` at its ``maxmemory``, a replica's ``READONLY``, ``BUSY``, ...: from the refusal until this process's next
heartbeat is taken, 2 s at most after it takes writes again), so a balancer sends new work to another
process meanwhile. ``HEAD`` answers the same status without the body, ``OPTIONS``
204 naming the methods, as every route does; any other method is 405 with ``Allow``. Never cached
(``Cache-Control: no-store``).
"""

from __future__ import annotations

from typing import Any

import tornado.web

from ..state.errors import RETRY_AFTER_SECONDS
from .served import ServedServer


class HealthHandler(tornado.web.RequestHandler):
    """``/healthz`` (``ready=False``) and ``/readyz`` (``ready=True``); see the module docstring."""

    SUPPORTED_METHODS = ("GET", "HEAD", "OPTIONS")
    ALLOW = "GET, HEAD, OPTIONS"

    def initialize(self, server: ServedServer, ready: bool) -> None:
        self.server = server
        self.ready = ready

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")

    def get(self) -> None:
        if not self.ready:
            self.finish("ok\n")
            return
        replication = self.server.core.replication
        state = replication.state if replication is not None else None
        if state is not None and (state.down or state.refusing is not None):
            self.set_status(503)
            self.set_header("Retry-After", str(RETRY_AFTER_SECONDS))
            self.finish("shared state store unreachable\n" if state.down else "shared state store refuses writes\n")
            return
        self.finish("ready\n")

    def head(self) -> None:
        self.get()

    def options(self) -> None:
        self.set_header("Allow", self.ALLOW)
        self.set_header("Access-Control-Allow-Methods", self.ALLOW)
        self.set_status(204)
        self.finish()

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code == 405:
            self.set_header("Allow", self.ALLOW)
        self.finish(f"{self._reason}\n")  # 405 and the like: one line, never a traceback
