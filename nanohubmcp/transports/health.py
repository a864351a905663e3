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
(``Cache-Control: no-store``). A body (a probe sends none) is read in pieces and dropped, as on every route that
reads none; one declared over twice ``max_request_bytes`` is answered 413 naming the limit and a
``Content-Length`` that is no number 400, before the body, with ``Connection: close``
(:func:`~.bodies.unkept_refusal`).
"""

from __future__ import annotations

from asyncio import Future
from typing import Any

import tornado.web

from ..errors import http_status_of
from ..server.connection import Connection
from ..state.errors import RETRY_AFTER_SECONDS
from .bodies import unkept_refusal
from .config import TransportConfig


@tornado.web.stream_request_body
class HealthHandler(tornado.web.RequestHandler):
    """``/healthz`` (``ready=False``) and ``/readyz`` (``ready=True``); see the module docstring."""

    # (Tornado's SUPPORTED_METHODS: its post() and the like answer the 405 once a body sent with them is dropped)
    ALLOW = "GET, HEAD, OPTIONS"

    def initialize(self, connection: Connection, ready: bool, config: TransportConfig) -> None:
        self.connection = connection
        self.ready = ready
        self.config = config

    def prepare(self) -> None:
        refused = unkept_refusal(self.request, self.config.max_request_bytes)
        if refused is not None:
            self.set_status(http_status_of(refused))
            self.finish(f"{refused.message}\n")

    def data_received(self, chunk: bytes) -> None:
        """A piece of a body: dropped."""

    def finish(self, chunk: str | bytes | dict[str, Any] | None = None) -> Future[None]:
        """Tornado's; an answer before the body was read says ``Connection: close`` (Tornado closes the connection
        after it; RFC 9112 § 9.6)."""
        if not self._headers_written and not self.request._body_future.done():
            self.set_header("Connection", "close")
        return super().finish(chunk)

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")

    def get(self) -> None:
        if not self.ready:
            self.finish("ok\n")
            return
        trouble = self.connection.store_trouble()
        if trouble is not None:
            self.set_status(503)
            self.set_header("Retry-After", str(RETRY_AFTER_SECONDS))
            self.finish(f"{trouble}\n")
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
