"""The base handler every route shares: Origin check, authorization, CORS, body limit, JSON
replies, errors.

Cross-cutting checks live in ``prepare()`` (a coroutine: subclasses write ``async def
prepare`` and ``await super().prepare()`` first); every error reply goes through
:meth:`BaseHandler.fail` (an exception from :mod:`nanohubmcp.errors` and a status) or
``write_error`` so no handler formats errors by hand and no client mistake ever becomes a 500
with an HTML page.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import tornado.web
from tornado.http1connection import HTTP1Connection

from ..auth.verifiers import TokenVerifier
from ..errors import (
    FORBIDDEN,
    HANDSHAKE_ROUTE,
    ForbiddenOrigin,
    InsufficientScope,
    InvalidRequest,
    MisdirectedRequest,
    NanohubMCPError,
    ProtocolError,
    RequestTooLarge,
    Unauthorized,
    error_response,
    http_status_for,
    http_status_of,
)
from ..protocol import jsonenc
from ..server.connection import Connection
from ..server.wire.principal import Principal
from . import auth
from .config import TransportConfig
from .origin import host_allowed, is_ip_host, origin_allowed
from .served import ServedServer

if TYPE_CHECKING:
    from ..server.core import ServerCore

log = logging.getLogger("nanohubmcp.http")

_EDGE_PASSED: weakref.WeakKeyDictionary[Any, tuple[str | None, str]] = weakref.WeakKeyDictionary()
"""Per TCP connection (its stream), the ``(Origin, Host)`` last let through: a keep-alive client's
next request with the same two headers skips the checks (one entry per open connection)."""

MCP_SESSION_ID_HEADER = "Mcp-Session-Id"
MCP_PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
MCP_METHOD_HEADER = "Mcp-Method"
MCP_NAME_HEADER = "Mcp-Name"
LAST_EVENT_ID_HEADER = "Last-Event-ID"

ALLOW_HEADERS = ", ".join((
    "Content-Type", "Accept", "Authorization", MCP_SESSION_ID_HEADER, MCP_PROTOCOL_VERSION_HEADER,
    MCP_METHOD_HEADER, MCP_NAME_HEADER, LAST_EVENT_ID_HEADER,
))
EXPOSE_HEADERS = ", ".join((MCP_SESSION_ID_HEADER, MCP_PROTOCOL_VERSION_HEADER))
JSON_TYPE = "application/json"
BODY_TIMEOUT = 30.0
"""Seconds a client has to send a request body once its headers arrived (slowloris guard)."""
DISCARD_FACTOR = 2
"""A refused body is read on and dropped up to this many times ``max_request_bytes``."""


def json_body_type(content_type: str | None) -> bool:
    """True for an absent ``Content-Type`` or a JSON one (``application/json; charset=utf-8``)."""
    if not content_type:
        return True
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def accepts(header: str | None, media: str) -> bool:
    """True when an ``Accept`` header admits ``media`` (absent header admits everything)."""
    if not header:
        return True
    for part in header.split(","):
        kind = part.split(";", 1)[0].strip().lower()
        if kind in (media, "*/*") or (kind.endswith("/*") and media.startswith(kind[:-1])):
            return True
    return False


def wants_sse(header: str | None) -> bool:
    """True when the client named ``text/event-stream`` itself (no Accept, or */*, gets JSON)."""
    return header is not None and "text/event-stream" in header.lower()


class BaseHandler(tornado.web.RequestHandler):
    """Shared behaviour of all nanohubmcp routes.

    URLSpec kwargs: ``server`` (the ``MCPServer`` facade), ``config`` (``TransportConfig``)
    and ``connection`` (the route's :class:`~nanohubmcp.server.connection.Connection`, its
    only way into the core's serving).
    """

    server: ServedServer
    core: ServerCore
    config: TransportConfig
    connection: Connection
    public = False
    """True for the documents a client reads before it has a token (the resource metadata)."""
    route = HANDSHAKE_ROUTE
    """Which statuses of the one error map this route answers with (REST has its own)."""
    principal: Principal | None = None
    """The caller the verifier authenticated (None without authorization configured)."""
    _answered_early = False
    """The whole answer went out before the request body was read (a refused body's 413)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        prepare = cls.__dict__.get("prepare")
        if prepare is not None and not inspect.iscoroutinefunction(prepare):
            # A sync override would drop the base's coroutine unawaited: no authorization.
            raise TypeError(f"{cls.__name__}.prepare must be 'async def' and 'await super().prepare()'")

    def initialize(self, server: ServedServer, config: TransportConfig, connection: Connection) -> None:
        self.server = server
        self.core = server.core
        self.config = config
        self.connection = connection

    # -- checks --------------------------------------------------------------------------
    async def prepare(self) -> None:
        # Origin first: an invalid Origin is 403 whatever the Host (MCP 2025-11-25, Transports § Security
        # Warning: servers MUST validate Origin); then a refused Host is 421.
        origin = self.request.headers.get("Origin")
        edge = (origin, self.request.host)
        stream = self.request.connection.stream if isinstance(self.request.connection, HTTP1Connection) else None
        if stream is None or _EDGE_PASSED.get(stream) != edge:  # else: this connection's last request
            if not origin_allowed(origin, self.config):          # had the same Origin and Host: checked
                log.warning("refused request from origin %s", origin)
                self.set_header("Connection", "close")  # the body (if any) stays unread
                self.fail(ForbiddenOrigin(
                    f"Forbidden: origin {origin} is not allowed; add it to allowed_origins to permit it"))
                return
            if not host_allowed(self.request.host, self.config):
                log.warning("refused request for host %s", self.request.host)
                self.set_header("Connection", "close")  # the body (if any) stays unread
                self.fail(MisdirectedRequest(
                    f"Misdirected Request: this server does not answer for host {jsonenc.show(self.request.host)} "
                    "(it listens on loopback; a proxy that forwards another host name must be named in public_url)"))
                return
            if stream is not None:
                _EDGE_PASSED[stream] = edge
        if origin is not None:
            self.set_header("Access-Control-Allow-Origin", origin)
            self.set_header("Vary", "Origin")
            self.set_header("Access-Control-Expose-Headers", EXPOSE_HEADERS)
        verifier = self.config.auth
        if verifier is None or self.public or self.request.method not in self.allowed_methods():
            return  # no authorization; the metadata; a 405 (it names what is allowed)
        if self.request.method == "OPTIONS":
            return  # CORS preflights carry no credentials (Fetch § CORS-preflight request)
        await self.authorize(verifier)

    async def authorize(self, verifier: TokenVerifier) -> None:
        """Check the bearer token: sets :attr:`principal`, or finishes with 401 / 403."""
        header = self.request.headers.get("Authorization")
        principal = await auth.authenticate(verifier, header)
        required = getattr(verifier, "required_scopes", None) or ()
        if principal is None:
            if header:
                problem, error = "the bearer token is invalid or expired", "invalid_token"
            else:
                problem, error = "send 'Authorization: Bearer <token>'", None
            self.refuse_auth(f"Unauthorized: {problem}", auth.challenge(
                self.public_base(), error=error, scopes=required, description=problem if error else None))
            return
        if principal.missing_scopes(required):
            self.refuse_scopes(required)
            return
        self.principal = principal

    def refuse_scopes(self, scopes: Any) -> None:
        """Finish with 403 ``insufficient_scope`` naming the ``scopes`` the call needs."""
        self.set_header("Connection", "close")  # the body (if any) stays unread
        self.fail(InsufficientScope(f"Forbidden: this server needs the scope(s) {' '.join(scopes)}",
                                    scopes=list(scopes)))

    def refuse_auth(self, message: str, www_authenticate: str) -> None:
        """Finish with a 401 carrying ``WWW-Authenticate``."""
        self.set_auth_challenge(www_authenticate)
        self.set_header("Connection", "close")  # the body (if any) stays unread
        self.fail(Unauthorized(message))

    def set_auth_challenge(self, www_authenticate: str) -> None:
        """Set ``WWW-Authenticate`` (RFC 6750 § 3), readable by browser clients too."""
        self.set_header("WWW-Authenticate", www_authenticate)
        if self.request.headers.get("Origin"):
            self.set_header("Access-Control-Expose-Headers", f"{EXPOSE_HEADERS}, WWW-Authenticate")

    def options(self, *args: Any, **kwargs: Any) -> None:
        """CORS preflight for allowed origins (``prepare`` already refused the others)."""
        self.set_header("Access-Control-Allow-Methods", ", ".join(self.allowed_methods()))
        # Tool parameters mirrored as Mcp-Param-<Name> headers (2026-07-28) have open-ended names.
        asked = self.request.headers.get("Access-Control-Request-Headers", "")
        params = [h.strip() for h in asked.split(",") if h.strip().lower().startswith("mcp-param-")]
        self.set_header("Access-Control-Allow-Headers", ", ".join([ALLOW_HEADERS, *params]))
        self.set_header("Access-Control-Max-Age", "600")
        self.set_status(204)
        self.finish()

    # -- replies -------------------------------------------------------------------------
    def send_json(self, status: int, body: Any) -> None:
        """Finish with a JSON body (a 503 error names its ``Retry-After`` from ``data.retryAfter``)."""
        if status == 503:
            retry = _retry_after(body)
            if retry is not None:
                self.set_header("Retry-After", str(retry))
        self.set_status(status)
        self.set_header("Content-Type", JSON_TYPE)
        self.finish(jsonenc.dumpb(body))

    def send_error_json(self, status: int, body: Any) -> None:
        """Finish with an error body already built (a JSON-RPC error response from the core)."""
        if self._finished:
            return
        self.clear_header("Content-Type")
        self.send_json(status, body)

    def fail(self, exc: ProtocolError, request_id: str | int | None = None) -> None:
        """Finish with the error body for ``exc`` (:meth:`error_body`) and its HTTP status on this
        route (:func:`~nanohubmcp.errors.http_status_of`, the one map); ``request_id`` defaults
        to the id the exception carries."""
        if isinstance(exc, InsufficientScope):
            self.set_auth_challenge(auth.challenge(self.public_base(), error="insufficient_scope", scopes=exc.scopes))
        self.send_error_json(http_status_of(exc, self.route), self.error_body(
            exc, request_id if request_id is not None else exc.request_id))

    def reply_status(self, response: dict[str, Any], route: str = HANDSHAKE_ROUTE) -> int:
        """The HTTP status of a response the core answered (200 for a result), setting the headers
        its error needs (``WWW-Authenticate`` for a tool's missing scopes)."""
        error = response.get("error")
        if error is None:
            return 200
        if error.get("code") == FORBIDDEN:
            data = error.get("data")
            scopes = data.get("requiredScopes") if isinstance(data, dict) else None
            self.set_auth_challenge(auth.challenge(
                self.public_base(), error="insufficient_scope", scopes=scopes if isinstance(scopes, list) else ()))
        status = http_status_for(error, route)
        if status == 503:
            retry = _retry_after({"error": error})
            if retry is not None:
                self.set_header("Retry-After", str(retry))
        return status

    def error_body(self, exc: NanohubMCPError, request_id: Any = None) -> Any:
        """The error body of this route: a JSON-RPC error response (REST overrides it)."""
        return error_response(exc, request_id)

    @property
    def finished(self) -> bool:
        """True once the response was finished (or the client is gone)."""
        connection = self.request.connection
        return (bool(self._finished) or self._answered_early
                or (isinstance(connection, HTTP1Connection) and connection.stream.closed()))

    def send_empty(self, status: int) -> None:
        """Finish with no body (202 Accepted, 204 No Content)."""
        self.set_status(status)
        self.clear_header("Content-Type")
        self.finish()

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if isinstance(value, ProtocolError):
            return  # a refusal meant for the client (e.g. the session limit), not a server fault
        super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors Tornado raises itself (bad method, body timeout, our HTTPErrors) as JSON; a
        :class:`~nanohubmcp.errors.ProtocolError` that escaped a handler as the error it names."""
        reason = self._reason
        exc_info = kwargs.get("exc_info")
        if exc_info is not None:
            exc = exc_info[1]
            if isinstance(exc, ProtocolError):  # with the request's id when it was read
                self.fail(exc)
                return
            if isinstance(exc, tornado.web.HTTPError) and exc.log_message:
                reason = exc.log_message % exc.args if exc.args else exc.log_message
        if status_code >= 500:
            reason = "Internal server error; see the server log"
        if status_code == 405:
            allowed = self.allowed_methods()
            self.set_header("Allow", ", ".join(allowed))  # RFC 9110 § 15.5.6: a 405 names what is allowed
            reason = f"Method Not Allowed: {self.request.path} takes {', '.join(allowed)}"
        self.set_header("Content-Type", JSON_TYPE)
        self.finish(jsonenc.dumpb({"error": reason}))

    def allowed_methods(self) -> list[str]:
        """The HTTP methods this handler implements (CORS preflight ``OPTIONS`` included)."""
        base = tornado.web.RequestHandler
        return [m for m in ("GET", "HEAD", "POST", "DELETE", "OPTIONS")
                if getattr(type(self), m.lower()) is not getattr(base, m.lower())]

    def public_base(self) -> str:
        """The advertised base URL with a trailing slash (public_url, or this host + prefix)."""
        if self.config.public_url:
            return self.config.public_url
        return f"{self.request.protocol}://{self.request.host}{self.config.path_prefix}/"

    def checked_base(self) -> str:
        """:meth:`public_base` when its host is known good (``public_url``, a checked ``Host`` on a
        loopback-bound server, or an IP address); else the path alone, a relative reference the
        client resolves against the URL it used, so a document never advertises a host name
        the client made up (a cached OpenAPI document would send the next caller there)."""
        if self.config.public_url or self.config.loopback_bound or is_ip_host(self.request.host):
            return self.public_base()
        return f"{self.config.path_prefix}/"


def _retry_after(body: Any) -> int | None:
    error = body.get("error") if isinstance(body, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    retry = data.get("retryAfter") if isinstance(data, dict) else None
    return retry if isinstance(retry, int) else None


# -- the slow-body guard: one timer per event loop ----------------------------------------------
# Every request body being read on a loop is timed in one table, oldest first, that one timer sweeps
# every SWEEP_SECONDS while it is not empty (instead of a timer made and cancelled per request): a
# body is given up between BODY_TIMEOUT and BODY_TIMEOUT + SWEEP_SECONDS seconds after its headers.
# It lives here, beside the body limit it serves, so timing a body costs no call into another module.
SWEEP_SECONDS = 1.0
"""How often the table is swept while it holds a request (at most; a quarter of the timeout when shorter)."""


class BodyDeadlines:
    """The requests of one event loop still reading their bodies, and their deadlines.

    Args:
        loop: the loop the requests are served on (every method runs there).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._pending: dict[object, tuple[float, Callable[[], None]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._interval = SWEEP_SECONDS

    def add(self, key: object, seconds: float, expire: Callable[[], None]) -> None:
        """Call ``expire`` once ``seconds`` have passed, unless :meth:`discard` comes first."""
        self._pending[key] = (self._loop.time() + seconds, expire)
        if self._timer is None:
            self._interval = min(SWEEP_SECONDS, seconds / 4)
            self._timer = self._loop.call_later(self._interval, self._sweep)

    def discard(self, key: object) -> None:
        """Forget ``key`` (its body arrived, or its request ended)."""
        self._pending.pop(key, None)

    def _sweep(self) -> None:
        self._timer = None
        now = self._loop.time()
        expired = [key for key, (deadline, _) in self._pending.items() if deadline <= now]
        for key in expired:
            entry = self._pending.pop(key, None)
            if entry is not None:
                entry[1]()
        if self._pending:
            self._timer = self._loop.call_later(self._interval, self._sweep)


_DEADLINES_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BodyDeadlines] = weakref.WeakKeyDictionary()


def body_deadlines(loop: asyncio.AbstractEventLoop) -> BodyDeadlines:
    """The table of ``loop`` (made on first use)."""
    table = _DEADLINES_BY_LOOP.get(loop)
    if table is None:
        table = _DEADLINES_BY_LOOP[loop] = BodyDeadlines(loop)
    return table


class BodyReadingHandler(BaseHandler):
    """A handler that reads a streamed request body, refusing bodies over ``config.max_request_bytes``.

    Subclasses are decorated with ``@tornado.web.stream_request_body``. A body over the limit (by its
    ``Content-Length``, or once a chunked body crosses it) is answered with 413 at once, and
    the rest of the body is then read and dropped (up to :data:`DISCARD_FACTOR` times the
    limit): a client that sends its whole body before reading still finds the 413, where
    closing at once would hand it a connection reset. A body not complete within
    ``BODY_TIMEOUT`` seconds closes the connection (give or take a second:
    :class:`BodyDeadlines`).
    """

    _chunks: list[bytes]
    _size: int
    # Until prepare_body() accepts a body, none is kept: Tornado streams the body of a request
    # it refuses itself (an unsupported method gets its 405) to data_received all the same.
    _too_large: bool = True
    _body_deadlines: BodyDeadlines | None = None
    """The loop's table this request's body is timed in, while it is being read."""

    async def prepare(self) -> None:
        """The shared checks (``BaseHandler.prepare``), then, for a POST they let through, the body's guards."""
        await super().prepare()
        if not self._finished and self.request.method == "POST":
            self.prepare_body()

    def prepare_body(self) -> bool:
        self._chunks, self._size, self._too_large = [], 0, False
        # A body that does not arrive in time closes the connection: one timer per loop sweeps
        # every body being read (Tornado's body_timeout makes a future chain per request).
        deadlines = self._body_deadlines = body_deadlines(asyncio.get_running_loop())
        connection = cast(HTTP1Connection, self.request.connection)  # a streamed body: HTTP/1
        deadlines.add(self, BODY_TIMEOUT, connection.close)
        limit = self.config.max_request_bytes
        # Tornado must not refuse first (it answers a bare 400): we decide, with a 413.
        connection.set_max_body_size(DISCARD_FACTOR * limit + (1 << 20))
        length = self.request.headers.get("Content-Length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                declared = -1
            if declared < 0:
                self.fail(InvalidRequest("Invalid Content-Length header"))
                return False
            if declared > limit:
                self._refuse_size(limit, drain=declared <= DISCARD_FACTOR * limit)
                return False
        return True

    def _refuse_size(self, limit: int, *, drain: bool = True) -> None:
        """Answer 413; with ``drain`` the body is read on (and dropped) before the connection is
        free again, else the connection closes after the answer."""
        self._too_large = True
        self._chunks = []
        error = RequestTooLarge(f"Request body too large: the limit is {limit} bytes (max_request_bytes)")
        if not drain:
            self.set_header("Connection", "close")  # the rest of the body is not read
            self.fail(error)
            return
        body = jsonenc.dumpb(self.error_body(error))
        self.clear_header("Content-Type")
        self.set_status(http_status_of(error))
        self.set_header("Content-Type", JSON_TYPE)
        self.set_header("Content-Length", str(len(body)))
        self.write(body)
        self.flush()  # the whole answer is out; the request ends once its body is read
        self._answered_early = True

    def data_received(self, chunk: bytes) -> None:
        limit = self.config.max_request_bytes
        if self._too_large:
            if self._answered_early:  # a refused body, read and dropped up to a bound
                self._size += len(chunk)
                if self._size > DISCARD_FACTOR * limit:
                    cast(HTTP1Connection, self.request.connection).close()
            return
        self._size += len(chunk)
        if self._size > limit:
            self._refuse_size(limit)
            return
        self._chunks.append(chunk)

    def _body_arrived(self) -> None:
        if self._body_deadlines is not None:
            self._body_deadlines.discard(self)
            self._body_deadlines = None

    def on_finish(self) -> None:
        # Never let the deadline outlive the request: the connection may serve the next one.
        self._body_arrived()
        super().on_finish()

    def body(self) -> bytes:
        """The whole body (call once the body is complete, i.e. from ``post``)."""
        self._body_arrived()
        if len(self._chunks) == 1:
            return self._chunks[0]
        return b"".join(self._chunks)
