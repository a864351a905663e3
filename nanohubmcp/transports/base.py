"""The base handler every route shares: Origin check, authorization, CORS, JSON replies, errors.

The handler of a route that reads a body, the body limit and the slow-body deadline of the POST
routes are in :mod:`.bodies`; the header names and the readings of a request's ``Content-Type``
and ``Accept`` in :mod:`.headers`; a 503's ``Retry-After`` in :mod:`.retry_after`.

Cross-cutting checks live in ``prepare()`` (a coroutine: subclasses write ``async def
prepare`` and ``await super().prepare()`` first); every error reply goes through
:meth:`BaseHandler.fail` (an exception from :mod:`nanohubmcp.errors` and a status) or
``write_error`` so no handler formats errors by hand and no client mistake ever becomes a 500
with an HTML page.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import tornado
import tornado.web
from tornado import httputil
from tornado.http1connection import HTTP1Connection

from ..auth.verifiers import TokenVerifier, principal_class
from ..errors import (
    FORBIDDEN,
    HANDSHAKE_ROUTE,
    ForbiddenOrigin,
    InsufficientScope,
    NanohubMCPError,
    ProtocolError,
    ServerBusy,
    Unauthorized,
    UnsupportedMediaType,
    error_response,
    http_status_for,
    http_status_of,
)
from ..protocol import jsonenc
from ..protocol.message_values import show
from ..schema.paths import echoed
from ..server.connection import Connection
from . import auth
from .access_log import request_summary
from .config import TransportConfig
from .gate import EARLY, NO_TOKEN, edge_refusal
from .headers import ALLOW_HEADERS, EXPOSE_HEADERS, JSON_TYPE
from .origin import is_ip_host
from .reached_host import reached_host

if TYPE_CHECKING:
    from ..server.wire.principal import Principal

log = logging.getLogger("nanohubmcp.http")

SERVER_HEADER = f"TornadoServer/{tornado.version}"
_date = (-1, "")
"""The last second :func:`http_date` formatted, and its text (one tuple: loops on several threads read it)."""


def http_date() -> str:
    """Now as an HTTP ``Date`` value (RFC 9110 § 5.6.7, whole seconds), formatted once a second."""
    global _date
    now = int(time.time())
    if now != _date[0]:
        _date = (now, httputil.format_timestamp(now))
    return _date[1]


class BaseHandler(tornado.web.RequestHandler):
    """Shared behaviour of all nanohubmcp routes.

    URLSpec kwargs: ``config`` (``TransportConfig``) and ``connection`` (the route's
    :class:`~nanohubmcp.server.connection.Connection`, its only way to the server: serving a message,
    and the readings its documents and logs use, ``connection.described`` and ``connection.stopping``).
    """

    config: TransportConfig
    connection: Connection
    public = False
    """True for the documents a client reads before it has a token (the resource metadata)."""
    route = HANDSHAKE_ROUTE
    """Which statuses of the one error map this route answers with (REST has its own)."""
    principal: Principal | None = None
    """The caller the verifier authenticated (None without authorization configured)."""
    _answered_early = False
    """The whole answer went out before the request body was read, which is read on and dropped (a
    refused body's 413, a 503 for the bodies being received: :mod:`.bodies`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        prepare = cls.__dict__.get("prepare")
        if prepare is not None and not inspect.iscoroutinefunction(prepare):
            # A sync override would drop the base's coroutine unawaited: no authorization.
            raise TypeError(f"{cls.__name__}.prepare must be 'async def' and 'await super().prepare()'")

    def initialize(self, config: TransportConfig, connection: Connection) -> None:
        self.config = config
        self.connection = connection

    def clear(self) -> None:
        """Tornado's ``clear()`` (the same default headers, status and empty body), with the
        ``Date`` header formatted once a second (:func:`http_date`) instead of once a response."""
        headers = self._headers = httputil.HTTPHeaders()
        headers["Server"] = SERVER_HEADER
        headers["Content-Type"] = "text/html; charset=UTF-8"
        headers["Date"] = http_date()
        self.set_default_headers()
        self._write_buffer = []
        self._status_code = 200
        self._reason = httputil.responses[200]

    # -- checks --------------------------------------------------------------------------
    async def prepare(self) -> None:
        # Origin first: an invalid Origin is 403 whatever the Host (MCP 2025-11-25, Transports § Security
        # Warning: servers MUST validate Origin); then a refused Host is 421 (gate.edge_refusal).
        request = self.request
        early = request.__dict__.get(EARLY, None)  # the gate judged the headers already (a body's POST)
        if early is None:
            refusal = edge_refusal(request, self.config)
            if refusal is not None:
                if isinstance(refusal, ForbiddenOrigin):
                    log.warning("403: refused a %s from origin %s (not an allowed origin)", request.method,
                                show(request.headers.get("Origin")))
                else:
                    log.warning("421: refused a %s for host %s (not a name this server answers: see public_url)",
                                request.method, show(request.host))
                self.fail(refusal)
                return
        headers = request.headers
        if "Origin" in headers:
            origin = headers["Origin"]
            self.set_header("Access-Control-Allow-Origin", origin)
            self.set_header("Vary", "Origin")
            self.set_header("Access-Control-Expose-Headers", EXPOSE_HEADERS)
        verifier = self.config.auth
        if verifier is None or self.public or early is NO_TOKEN or request.method not in self.allowed_methods():
            return  # no authorization; the metadata; a 405 (it names what is allowed)
        if request.method == "OPTIONS":
            return  # CORS preflights carry no credentials (Fetch § CORS-preflight request)
        try:
            if early is None:
                await self.authorize(verifier)
            elif isinstance(early, principal_class()):
                self.settle(verifier, early)
            else:  # an asynchronous verifier's answer
                token = auth.bearer_token(headers.get("Authorization"))
                self.settle(verifier, await auth.awaited(verifier, early, token))
        except ServerBusy as exc:  # the verifier cannot judge the token now (a JWT issuer's keys unreadable)
            self.fail(exc)

    async def authorize(self, verifier: TokenVerifier) -> None:
        """Check the bearer token: sets :attr:`principal`, or finishes with 401 / 403."""
        self.settle(verifier, await auth.authenticate(verifier, self.request.headers.get("Authorization")))

    def settle(self, verifier: TokenVerifier, verdict: object) -> None:
        """Act on the verifier's answer to the token: sets :attr:`principal`, or finishes with 401 / 403."""
        required = getattr(verifier, "required_scopes", None) or ()
        if not isinstance(verdict, principal_class()):
            problem, error = auth.refusal(self.request.headers.get("Authorization"))
            self.refuse_auth(f"Unauthorized: {problem}", auth.challenge(
                self.public_base(), error=error, scopes=required, description=problem if error else None))
            return
        if verdict.missing_scopes(required):
            self.refuse_scopes(required)
            return
        self.principal = verdict

    def refuse_scopes(self, scopes: Any) -> None:
        """Finish with 403 ``insufficient_scope`` naming the ``scopes`` the call needs."""
        self.fail(InsufficientScope(f"Forbidden: this server needs the scope(s) {' '.join(scopes)}",
                                    scopes=list(scopes)))

    def refuse_auth(self, message: str, www_authenticate: str) -> None:
        """Finish with a 401 carrying ``WWW-Authenticate``."""
        self.set_auth_challenge(www_authenticate)
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
    def send_json(self, status: int, body: Any, *, echoes: bool = True) -> Awaitable[None] | None:
        """Finish with a JSON body (a 503 error names its ``Retry-After`` from ``data.retryAfter``).

        A lone surrogate in the body's text is sent as U+FFFD except in the members that echo the client
        (``id``, ``error``: :mod:`~nanohubmcp.protocol.lone_surrogates`); ``echoes=False`` for a body that
        is all the server's (a REST answer of a tool's, its error text too).

        A body the socket does not take at once counts in the server's unsent budget
        (:mod:`.unsent`: ``max_unsent_bytes``, and a deadline to drain by).

        Returns:
            None, the body written; or, when the body holds a
            :class:`~nanohubmcp.protocol.text_pieces.TextPieces` (a kept file's text, on a route that
            asked for it: :data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`), the writing of the
            rest a piece at a time, which the handler awaits before it returns (:mod:`.pieces`).
        """
        if status == 503:
            from .retry_after import retry_after_of

            retry = retry_after_of(body)
            if retry is not None:
                self.set_header("Retry-After", str(retry))
        self.set_status(status)
        # A pre-encoded array's text is a part of its own: each part goes to the socket as it is,
        # never copied into one text with the rest and then into bytes (a body of 200 MB cost 400 MB).
        try:  # (the usual body passes no keyword: a call with one costs ~400 instructions)
            parts = jsonenc.dumpb_parts(body) if echoes else jsonenc.dumpb_parts(body, echoes=False)
        except (TypeError, ValueError) as exc:  # a middleware's value JSON cannot hold: answered as an error
            parts = self.connection.unsendable_parts(body, exc, echoes=echoes)
        last = parts[-1]
        assert isinstance(last, bytes)  # (the text after the last spliced part, if any)
        if len(parts) == 1:  # (the usual body: a pre-encoded array's text or a kept file's is a part of its own)
            size = len(last)
        else:
            size = sum(len(part) if isinstance(part, bytes) else part.size for part in parts)
        # Straight into the headers clear() made (constant, safe values; Tornado's set_header checks
        # each value, and finish() would count the body and check the length's type again).
        headers = self._headers
        headers["Content-Type"] = JSON_TYPE
        if not self._write_buffer:  # (else finish() counts what was written before too)
            headers["Content-Length"] = str(size)
        for index, part in enumerate(parts[:-1]):
            if not isinstance(part, bytes):
                from .pieces import send_rest

                return send_rest(self, parts[index:], self.config.unsent)
            self.write(part)
            self.flush()  # (a buffer of one part is sent as it is, not joined)
        written = self.finish(last)
        if not written.done():  # the socket did not take it all: held for a client that may not read
            principal = self.principal
            self.config.unsent.hold(self.request.connection, size, written,
                                    None if principal is None else principal.subject)
        return None

    def send_error_json(self, status: int, body: Any, *, echoes: bool = True) -> None:
        """Finish with an error body already built (a JSON-RPC error response from the core; ``echoes``
        as :meth:`send_json`'s)."""
        if self._finished:
            return
        self.clear_header("Content-Type")
        self.send_json(status, body, echoes=echoes)

    def fail(self, exc: ProtocolError, request_id: str | int | None = None) -> None:
        """Finish with the error body for ``exc`` (:meth:`error_body`) and its HTTP status on this
        route (:func:`~nanohubmcp.errors.http_status_of`, the one map); ``request_id`` defaults
        to the id the exception carries."""
        self.error_headers(exc)
        self.send_error_json(http_status_of(exc, self.route), self.error_body(
            exc, request_id if request_id is not None else exc.request_id))

    def error_headers(self, exc: ProtocolError) -> None:
        """Set the headers the answer to ``exc`` needs beside its body: ``WWW-Authenticate`` for missing
        scopes, ``Retry-After`` for a :class:`~nanohubmcp.errors.ServerBusy` (a REST error body has no
        ``data.retryAfter`` to read it from)."""
        if isinstance(exc, InsufficientScope):
            self.set_auth_challenge(auth.challenge(self.public_base(), error="insufficient_scope", scopes=exc.scopes))
        elif isinstance(exc, ServerBusy):
            self.set_header("Retry-After", str(exc.retry_after))

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
            from .retry_after import retry_after_of

            retry = retry_after_of({"error": error})
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
        if isinstance(value, tornado.web.HTTPError):
            super().log_exception(typ, value, tb)  # its line names the request by _request_summary
            return
        # Tornado's line adds repr(request), whose uri holds the path prefix and any query credential.
        logging.getLogger("tornado.application").error(
            "Uncaught exception %s", self._request_summary(), exc_info=(typ, value, tb))

    def _request_summary(self) -> str:
        return request_summary(self)  # no credential, no path prefix (access_log.logged_uri)

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
            if isinstance(exc, tornado.web.HTTPError) and isinstance(exc.__cause__, httputil.HTTPInputError):
                # A form body (multipart/form-data, urlencoded) Tornado could not parse before the handler
                # ran: no route reads one, so it is the route's 415, in the route's shape.
                self.fail(UnsupportedMediaType(
                    "Unsupported Media Type: the body was sent as "
                    f"{echoed(self.request.headers.get('Content-Type', '').split(';')[0])}; send it as JSON with "
                    "'Content-Type: application/json'"))
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
        return f"{self.request.protocol}://{reached_host(self.request)}{self.config.path_prefix}/"

    def cache_control(self, seconds: int = 300) -> str:
        """``Cache-Control`` of a document built from :meth:`public_base`: shared caches may keep it only
        when it is the same for every client (``public_url`` set, no authorization); one built from the
        request's ``Host`` and scheme, or behind a token, is ``private`` (a proxy's cache keys on its
        own upstream name, and would hand one client's host name to the next)."""
        shared = self.config.public_url is not None and self.config.auth is None
        return f"max-age={seconds}" if shared else f"private, max-age={seconds}"

    def checked_base(self) -> str:
        """:meth:`public_base` when its host is known good (``public_url``, a checked ``Host`` on a
        loopback-bound server, or an IP address); else the path alone, a relative reference the
        client resolves against the URL it used, so a document never advertises a host name
        the client made up (a cached OpenAPI document would send the next caller there)."""
        if self.config.public_url or self.config.loopback_bound or is_ip_host(reached_host(self.request)):
            return self.public_base()
        return f"{self.config.path_prefix}/"
