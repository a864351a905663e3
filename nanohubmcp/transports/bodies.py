"""Request bodies read in pieces: the 413 before a body over ``max_request_bytes`` is buffered.

A body whose ``Content-Length`` is within the limit is buffered by Tornado for the handler
itself (:class:`BodyReadingHandler`, the base of every route that reads a body); the application
(:class:`~nanohubmcp.transports.http_server.LimitedApplication`) routes every other body — a
``Content-Length`` over the limit or malformed, a chunked body — to the handler's
:func:`streamed_twin`, which reads it in pieces. A body over the limit (by its
``Content-Length``, or once a chunked body crosses it) is answered with 413 at once, and the
rest is then read and dropped (up to :data:`DISCARD_FACTOR` times the limit): a client that
sends its whole body before reading still finds the 413, where closing at once would hand it
a connection reset; one declared larger still is answered ``Connection: close``, read and dropped to its end
within the body's deadline, then closed (:meth:`StreamedBody._linger`, trial 66 F6: the official ``mcp`` client
met a bare ``ReadError`` for a body over twice the limit). A chunked one is read and dropped to its last chunk
(up to :data:`CHUNKED_DROP_FACTOR` times the limit, within the body's deadline), and its connection serves on
(:meth:`StreamedBody._refuse_chunked`; it was cut off at twice the limit, a reset under a client still sending).
A body refused for the budget of bodies being received (503, :mod:`.budget`) is answered as one within twice
the limit is, a chunked one too (a fresh-user trial, trial56 F12: the reset ended the official client's session).
Both ways answer the same request with the same bytes. The slow-body deadline covers both
(``http_server.Deadlines``). A client waiting for ``100 Continue`` has sent no body: its early answer says
``Connection: close`` and no 100 follows it (trial56 F5).

Source: RFC 9110 § 15.5.14 (413 Content Too Large), § 10.1.1 (Expect); RFC 9112 § 9.6 (tear-down).
"""

from __future__ import annotations

from asyncio import Future
from typing import Any, cast

import tornado.web
from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPServerRequest

from ..errors import (
    InvalidRequest,
    ProtocolError,
    RequestTooLarge,
    ServerBusy,
    UnsupportedMediaType,
    http_status_of,
)
from ..protocol import jsonenc
from ..schema.paths import echoed
from .base import BaseHandler
from .budget import OVERALL, PER_PRINCIPAL, RETRY_SECONDS
from .content_length import declared_length
from .headers import JSON_TYPE, content_coding

DISCARD_FACTOR = 2
"""A refused body is read on and dropped up to this many times ``max_request_bytes``."""
CHUNKED_DROP_FACTOR = 64
"""A chunked body refused 413 is read and dropped to its last chunk up to this many times ``max_request_bytes``
(1 GiB at the default 16 MiB; and within the body's deadline); beyond it, the connection is closed."""
BUSY = "nanohubmcp_busy"
"""The key of a request's ``__dict__`` saying its body did not fit in the budget of bodies being
received (:mod:`.budget`), and which limit it passed: once the route's checks pass, it is answered 503, then
read and dropped (:meth:`StreamedBody.answer_early`)."""
DUE = "nanohubmcp_budget_due"
"""The key of a request's ``__dict__`` holding ``(budget, size)`` for a body whose budget is taken once
an asynchronous verifier named its principal (:meth:`StreamedBody.prepare`)."""
BUSY_MESSAGES = {
    OVERALL: "Service Unavailable: the server is receiving as many request bodies as it holds at once "
             "(max_buffered_bytes); retry shortly",
    PER_PRINCIPAL: "Service Unavailable: the request bodies this principal is sending take all the server holds "
                   "for one principal at once (max_buffered_bytes_per_principal); retry once they are in",
}
"""The 503's message for each limit of the budget."""


class BodyReadingHandler(BaseHandler):
    """A handler that reads a request body of at most ``config.max_request_bytes`` (413 above it).

    The application of :func:`~nanohubmcp.transports.routes.make_app` routes a request whose
    ``Content-Length`` is within the limit to this class, with the body buffered by Tornado
    (:meth:`body` is ``request.body``), and any other request to the class's streamed twin
    (:func:`~nanohubmcp.transports.bodies.streamed_twin`), which refuses a body over the limit
    with 413 before it is buffered. Handlers call :meth:`received` from ``post``, once.
    """

    def received(self) -> bytes | None:
        """The whole body, for ``post`` to read (the body is complete by then); or None when there is
        nothing left to do: the request was answered as its body arrived (a 413, a 503: :class:`StreamedBody`),
        its client is gone, or its body was sent compressed (answered 415 here: :meth:`refuse_coding`).

        The route's own checks run before (``prepare``: Tornado calls no ``post`` after a refusal).
        """
        connection = self.request.connection
        if self._answered_early or (isinstance(connection, HTTP1Connection) and connection.stream.closed()):
            return None
        if self.refuse_coding():
            return None
        return self.body()

    def body(self) -> bytes:
        """The whole body as it was received (:meth:`received` reads it)."""
        return self.request.body

    def refuse_coding(self) -> bool:
        """Finish with 415 and ``Accept-Encoding: identity`` when the body was sent compressed (a
        ``Content-Encoding`` other than ``identity``); True when it did. Bodies are read as sent, never
        decompressed: a few compressed bytes could stand for far more than ``max_request_bytes``.

        Source: RFC 9110 § 15.5.16 (415 for a content coding the server does not accept, with
        ``Accept-Encoding`` saying which it does), § 12.5.3.
        """
        coding = self.sent_coding()
        if coding is None:
            return False
        self.set_header("Accept-Encoding", "identity")
        self.fail(UnsupportedMediaType(
            f"Unsupported Media Type: the body was sent with 'Content-Encoding: {echoed(coding)}'; this server reads "
            "request bodies uncompressed only: send the body uncompressed, without Content-Encoding"))
        return True

    def sent_coding(self) -> str | None:
        """The content coding the body was sent with (``Content-Encoding``), None for none or ``identity``."""
        headers = self.request.headers
        # `in` first: the usual request has no such header, and `get` of a missing one raises and
        # catches a KeyError inside Mapping.get (no call into headers.py either: one module hop fewer)
        if "Content-Encoding" not in headers or not (header := headers["Content-Encoding"]):
            return None
        return content_coding(header)


class StreamedBody(BodyReadingHandler):
    """The body-reading part of every streamed twin (see :func:`streamed_twin`)."""

    _chunks: list[bytes]
    _size = 0
    """The bytes of the body received so far (a refused body's too, counted against its bound)."""
    # Until prepare_body() accepts a body, none is kept: Tornado streams the body of a request
    # it refuses itself (an unsupported method gets its 405) to data_received all the same.
    _too_large: bool = True
    _drop_bound = 0
    """A refused body declared over :data:`DISCARD_FACTOR` times the limit: its length, read and dropped
    (:meth:`_linger`); 0 otherwise."""

    keeps_body = True
    """False for the twin of a route that reads no body (any body it is sent is read and dropped)."""

    async def prepare(self) -> None:
        """The route's checks, then, for a POST they let through, the budget and the body's limit; for
        a body no route keeps, its bound (:meth:`drop_body`)."""
        await super().prepare()
        if self._finished or self._answered_early:
            return
        if self.request.method != "POST" or not self.keeps_body:
            self.drop_body()
            return
        request = self.request
        refused = request.__dict__.get(BUSY)
        if refused is None and DUE in request.__dict__:  # the principal is known now
            budget, size = request.__dict__[DUE]
            principal = self.principal
            refused = budget.take(request.server_connection, size, None if principal is None else principal.subject)
        # Tornado must not refuse first (it answers a bare 400): we decide (a 413; a refused body's bound).
        cast(HTTP1Connection, request.connection).set_max_body_size(DISCARD_FACTOR * self.config.max_request_bytes
                                                                    + (1 << 20))
        if refused is not None:
            self.answer_early(ServerBusy(BUSY_MESSAGES[refused], retry_after=RETRY_SECONDS),
                              drain=not expects_continue(request))
            return
        self.prepare_body()

    def drop_body(self) -> None:
        """A body the route keeps none of (a method other than POST, a route that reads no body): read and
        dropped once the route's checks passed, then the route answers (a 405, a document); one
        :func:`unkept_refusal` refuses is answered at once, unread, saying ``Connection: close``."""
        refused = unkept_refusal(self.request, self.config.max_request_bytes)
        if refused is not None:
            self.answer_early(refused, drain=False)

    def prepare_body(self) -> bool:
        self._chunks, self._size, self._too_large = [], 0, False
        limit = self.config.max_request_bytes
        length = self.request.headers.get("Content-Length")
        if length is not None:
            declared = declared_length(length)
            if declared is None:
                self._refuse_length()
                return False
            if declared > limit:
                if expects_continue(self.request):  # no body comes: nothing to read
                    self._refuse_size(limit, drain=False)
                elif declared > DISCARD_FACTOR * limit:
                    self._linger(limit, declared)
                else:
                    self._refuse_size(limit)
                return False
        return True

    def _refuse_length(self) -> None:
        """Answer 400 for a ``Content-Length`` that is no number: where the body ends is unknown, so the
        connection closes after the answer."""
        self.set_header("Connection", "close")
        self.fail(InvalidRequest("Invalid Content-Length header"))

    def _refuse_size(self, limit: int, *, drain: bool = True) -> None:
        """Answer 413 (:meth:`answer_early`)."""
        self.answer_early(too_large(limit), drain=drain)

    def _linger(self, limit: int, declared: int) -> None:
        """Answer 413 to a body declared over the bound of a drained one, saying ``Connection: close``; its
        ``declared`` bytes are then read and dropped (within the body's deadline: the time bound) and the connection
        closes once they are in: a client that sends its whole body before it reads (the official ``mcp``
        client) finds the 413, where a close at once would hand it a reset (trial 66 F6; nginx's lingering close)."""
        connection = cast(HTTP1Connection, self.request.connection)
        connection.set_max_body_size(declared)
        connection._disconnect_on_finish = True  # (Tornado's own flag: close once the request is in and answered)
        self._drop_bound = declared
        self.set_header("Connection", "close")
        self._refuse_size(limit)

    def _refuse_chunked(self, limit: int) -> None:
        """Answer 413 to a chunked body the moment it crosses ``limit``; the rest is read and dropped to its last
        chunk, up to :data:`CHUNKED_DROP_FACTOR` times ``limit`` and within the body's deadline, and the connection
        then serves the client's next request: a client that sends its whole body before it reads finds the 413,
        where a close at twice the limit handed it a reset. The bytes the body took of the budget (:mod:`.budget`)
        are given back at once: nothing of it is kept."""
        self._drop_bound = CHUNKED_DROP_FACTOR * limit
        # Tornado's own bound on a chunked body (it closes past it) above ours, which closes at the drop bound
        cast(HTTP1Connection, self.request.connection).set_max_body_size(self._drop_bound + (1 << 20))
        budget = getattr(self.application, "budget", None)
        if budget is not None and budget.used:
            budget.give_back(self.request.server_connection)
        self._refuse_size(limit)

    def answer_early(self, error: ProtocolError, *, drain: bool) -> None:
        """Answer ``error`` (a 413, a 503 for the budget) before the body is read; nothing of it is kept.

        With ``drain`` the body is then read and dropped (up to :data:`DISCARD_FACTOR` times
        ``max_request_bytes``, within the body's deadline), and the connection serves its next
        request: a client that sends its whole body before it reads finds the answer, where a close
        would hand it a connection reset. Without it the answer says ``Connection: close`` and the
        connection closes once it is out; so it does for a client waiting for ``100 Continue``
        (:func:`expects_continue`): it has sent no body, and no 100 may follow a final answer.
        """
        self._too_large = True
        self._chunks = []
        if not drain:
            self.set_header("Connection", "close")  # the rest of the body is not read
            self.fail(error)
            return
        body = jsonenc.dumpb(self.error_body(error))
        self.clear_header("Content-Type")
        self.set_status(http_status_of(error, self.route))
        self.error_headers(error)
        self.set_header("Content-Type", JSON_TYPE)
        self.set_header("Content-Length", str(len(body)))
        self.write(body)
        self.flush()  # the whole answer is out; the request ends once its body is read
        self._answered_early = True

    def refuse_unread(self, error: ProtocolError) -> None:
        """Answer ``error`` before the body is read, on a route that keeps none (a path no route serves: its
        404). A body declared within ``max_request_bytes`` is then read and dropped (:meth:`answer_early`) and
        the connection serves the next request; a larger one, a chunked one, one with a malformed length or one
        awaited with ``Expect: 100-continue`` stays unread, and the answer says ``Connection: close``. The
        handler's methods then do nothing (Tornado calls the request's once the body is in)."""
        headers = self.request.headers
        declared = None if "Transfer-Encoding" in headers else declared_length(headers.get("Content-Length", "0"))
        self.answer_early(error, drain=declared is not None and declared <= self.config.max_request_bytes
                          and not expects_continue(self.request))

    def finish(self, chunk: str | bytes | dict[str, Any] | None = None) -> Future[None]:
        """Tornado's ``finish``; an answer that begins before the body was read (a refusal in ``prepare``),
        and is not one whose body is read on (:meth:`answer_early`), says ``Connection: close``: Tornado closes
        the connection after it, and a keep-alive client must not send its next request there (RFC 9112 § 9.6;
        trial61 F6)."""
        if not self._headers_written and not self.request._body_future.done():
            self.set_header("Connection", "close")
        return super().finish(chunk)

    def data_received(self, chunk: bytes) -> None:
        limit = self.config.max_request_bytes
        if self._too_large:
            if self._answered_early:  # a refused body, read and dropped up to a bound
                self._size += len(chunk)
                if self._size > max(DISCARD_FACTOR * limit, self._drop_bound):
                    cast(HTTP1Connection, self.request.connection).close()
            return
        self._size += len(chunk)
        if self._size > limit:  # (a chunked body: one declared over the limit was refused before its first byte)
            self._refuse_chunked(limit)
            return
        self._chunks.append(chunk)

    def body(self) -> bytes:
        if len(self._chunks) == 1:
            return self._chunks[0]
        return b"".join(self._chunks)


def too_large(limit: int) -> RequestTooLarge:
    """The 413 of a body over ``limit`` (``max_request_bytes``), naming it."""
    return RequestTooLarge(f"Request body too large: the limit is {limit} bytes (max_request_bytes)")


def unkept_refusal(request: HTTPServerRequest, limit: int) -> ProtocolError | None:
    """The refusal a body no route keeps gets before it is read (a route that reads none, a method other than
    POST, the probes), ``limit`` being ``max_request_bytes``: 413 (:func:`too_large`) for one declared over
    :data:`DISCARD_FACTOR` times it, 400 for a ``Content-Length`` that is no number (where it ends is unknown); else
    None: it is read and dropped, a chunked one up to the connection's bound, set here (Tornado answered the
    others a bare 400 without a word)."""
    cast(HTTP1Connection, request.connection).set_max_body_size(DISCARD_FACTOR * limit + (1 << 20))
    length = request.headers.get("Content-Length")
    if length is None:
        return None
    declared = declared_length(length)
    if declared is None:
        return InvalidRequest("Invalid Content-Length header")
    return too_large(limit) if declared > DISCARD_FACTOR * limit else None


def expects_continue(request: HTTPServerRequest) -> bool:
    """Whether ``request`` waits for ``100 Continue`` before it sends its body (``Expect: 100-continue``,
    case-insensitive: RFC 9110 § 10.1.1)."""
    headers = request.headers
    return "Expect" in headers and headers["Expect"].strip().lower() == "100-continue"


_TWINS: dict[type[BaseHandler], type[BodyReadingHandler]] = {}
"""Each routed handler class's twin (one per class of the package's routes)."""


def streamed_twin(handler: type[BaseHandler]) -> type[BodyReadingHandler]:
    """``handler`` reading its body in pieces: a subclass of it and of :class:`StreamedBody`,
    decorated with ``@tornado.web.stream_request_body`` (made once per class). The twin of a
    route that reads no body (not a ``BodyReadingHandler``) drops what it is sent."""
    twin = _TWINS.get(handler)
    if twin is None:
        namespace = {"__module__": handler.__module__, "__qualname__": f"{handler.__qualname__}[streamed]",
                     "keeps_body": issubclass(handler, BodyReadingHandler)}
        twin = _TWINS[handler] = tornado.web.stream_request_body(type(handler.__name__, (StreamedBody, handler),
                                                                      namespace))
    return twin
