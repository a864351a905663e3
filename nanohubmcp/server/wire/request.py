"""The request context: everything the core knows about the request being served.

A transport builds one per incoming JSON-RPC request (or notification) and hands it to the
dispatcher with the parsed message. It carries the protocol version in force (negotiated at
``initialize``, or from the request's own ``_meta`` in 2026-07-28), the session when there is
one, the client's capabilities, and the stream where related messages (progress, log
messages, server→client requests) go — ahead of the response, in order.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ...protocol.jsonrpc import Message
from ...protocol.versions import ProtocolVersion
from .cancel_flag import CancelFlag as CancelFlag  # (re-exported: it was defined here)
from .streams import OutboundStream

if TYPE_CHECKING:
    from .principal import Principal
    from .sessions import Session

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""Syslog severities, lowest first (RFC 5424; MCP Server § Utilities § Logging)."""

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

LARGE_MESSAGE_BYTES = 1 << 20
"""A message read from a body (or a stdio line) of at least this many bytes is a large one
(:attr:`RequestContext.large`): its JSON is parsed, and a call's arguments checked against the
tool's schema and converted, on a worker thread instead of the event loop. Parsing and checking
take about a second per 10 MB, during which a loop doing them would answer nobody else; below
this size the hand-over to a thread would cost more than it saves."""

T = TypeVar("T")


class Slot(Generic[T]):
    """A typed place on a :class:`RequestContext` for what a part above the wire keeps with one
    request (the call's progress reporter, the task a call runs as, the multi round-trip state of a
    2026-07-28 call). The part that owns the value defines the slot; the request only holds it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


RAN_ON: Slot[tuple[str, threading.Thread]] = Slot("ran on")
"""Where a ``tools/call``'s function ran, ``(executor, thread)``, when not on the thread that serves
the call (the event loop's): set on that thread by :func:`~nanohubmcp.server.calls.progress.ran_here`
(the worker pool, a notebook kernel); the call's provenance record names it."""

ANSWERED_BY_LAYER: Slot[bool] = Slot("answered by a layer")
"""Whether a ``tools/call`` was answered before its tool's code ran. True while a request is inside
the layers added with ``server.add_middleware`` and has not reached its handler (the pipeline's
steps around them set and clear it): read after ``call_next`` returns, True says one of those layers
answered the request itself; the ``tools/call`` handler sets it too when the tool's input schema
refuses the arguments, when the function could not start (``ToolBusy``: every worker busy, a
notebook kernel running a cell) and when a job tool's job could not be made (the job store full):
the function never ran. False or absent, the tool was reached (or there are
no such layers). The provenance layer records no such call; the result cache keeps none."""

STREAMS_TEXT: Slot[bool] = Slot("the answer writes a kept file's text a piece at a time")
"""Set by a transport whose answer to this request writes a
:class:`~nanohubmcp.protocol.text_pieces.TextPieces` a piece at a time (a Streamable HTTP POST, answered
with a JSON body or an SSE event; a legacy HTTP+SSE message whose session's stream is written in this
process; stdio): a ``resources/read`` of a result kept in a file then answers its text as the file
(:class:`~nanohubmcp.server.results.kept_text.KeptText`), not as a ``str``. Absent on every other
transport (a batch, REST, the in-memory client), which gets the ``str``; taken away as the request enters
the layers added with ``server.add_middleware`` (:mod:`~nanohubmcp.server.pipeline`), so those see the
``str`` too.

.. versionchanged:: 1.0
   Set for an answer framed as SSE too."""

TIMED_OUT: Slot[bool] = Slot("a call answered at a time limit")
"""Whether a ``tools/call``'s ``isError`` result answers a call past a time limit
(:class:`~nanohubmcp.errors.ToolTimeout`, set by the tool-call service: ``tool_timeout``, a Rappture tool's
``timeout``, a Sim2L's ``cell_timeout``): REST answers it 504, not 500."""

CLIENT_CANCELLED: Slot[bool] = Slot("a call its client cancelled")
"""Whether a ``tools/call`` (or a ``resources/read``, a ``prompts/get``) was cancelled by its client while it ran, set
as the call ends (:mod:`~nanohubmcp.server.calls.call_endings`): a withdrawn request (``notifications/cancelled``, a
2026-07-28 response stream closed), whatever its function did next, or a coroutine cancelled for its client (stdio's
input closed too: :data:`PEER_GONE`). No answer is sent, and its record says ``cancelled``.

.. versionadded:: 1.0

.. versionchanged:: 1.0
   A sync function's call too: it was recorded ``completed`` when it returned after its client's cancel."""

PEER_GONE: Slot[bool] = Slot("the client closed the request's response stream")
"""Whether the request's client went away (the 2026-07-28 era's response stream closed, which withdraws the
request; stdio's input closed, whose output may still be read: ``Connection.peer_gone``): its cancellation is the
client's, as a ``notifications/cancelled`` is."""

ASKED_WITHOUT_CLIENT: Slot[bool] = Slot("a REST call's tool asked the client")
"""Whether a REST ``tools/call``'s tool asked the client something (``ctx.elicit``, ``ctx.sample``, roots), which
a REST caller, with no session, cannot answer (set by :mod:`~nanohubmcp.server.wire.pending`): REST answers the
tool's error 400, not 500."""

RETURNED_ERROR: Slot[bool] = Slot("an error result the tool returned")
"""Whether a ``tools/call``'s ``isError`` result is one the tool returned itself,
``ToolResult(..., is_error=True)`` (set by the tool-call service), not one made from an exception it
raised or a result breaking its output schema. REST answers the one 422 (the earlier package's answer),
the other 500; MCP answers both as ``isError: true``."""

UNKNOWN_TOOL: Slot[bool] = Slot("a call naming no tool")
"""Whether a ``tools/call`` was refused because its ``params.name`` names no tool (set where the call's tool
is looked up, :func:`~nanohubmcp.server.calls.tool_checks.lookup_tool`): the error is -32602 on every route,
which REST answers 404 for this refusal (400 for the others)."""


class RequestContext:
    """One request in flight.

    Attributes:
        message: the parsed JSON-RPC message.
        version: protocol version in force for this request.
        session: the handshake-era session, or None (sessionless / 2026-07-28).
        stream: where related messages go; None when the reply must be plain JSON and no
            other stream can take them. A transport may defer it (:meth:`defer_stream`): it is
            then made when first read, on the loop thread.
        stream_opened: whether the request has its stream now (a deferred one only once made: a related
            message went out); read without making one (an attribute: read in C on every call's answer).
        loop: the event loop serving the request.
        principal: the caller the transport's verifier authenticated, or None when the
            server has no authorization configured.
        server: the public server object (``MCPServer``) serving the request, which a
            function's ``ctx.server`` gives; None when the transport did not name one.
        open_session: for ``initialize`` on a transport that starts sessions there, the
            function minting one (``open_session(version) -> Session``); else None.
        opened_session: the session ``initialize`` minted through ``open_session``.
        argument_errors: this request's override of the server's ``argument_errors`` option.
        on_accepted: called once the request passed the call pipeline's layers and its handler
            starts (legacy SSE answers its POST 202 then; a refusal before is the POST's status);
            set with :meth:`set_accepted_callback`.
        data_only: the answer carries data only and all of it (REST asks for it): a tool's ``None``
            is ``structuredContent {"result": null}``, and no part of a result is kept aside as a
            resource (a REST caller has no ``resources/read``).
        provenance_id: the id of the provenance record this ``tools/call`` will leave (minted
            before the tool runs, so ``call_finished`` can name it), else None.
        job_id: the id of the ``@async_tool`` job this request runs as (its progress is stored
            with the job), else None.
        escalate: set (:meth:`allow_escalation`) while a 2026-07-28 call may still become a
            task: ``escalate(message)`` makes it one and answers whether it is one.
        task_metadata: what the function published with ``ctx.set_task_metadata``.
        transport: the transport the request came on (``"streamable-http"``, ``"sse"``,
            ``"stdio"``, ``"rest"``, …), or None when not said.
        trace_headers: the W3C trace context headers (``traceparent``, ``tracestate``,
            ``baggage``) of the HTTP request that carried it, or None: the edge hands them over,
            the core never sees headers otherwise.
        large: the message came in a body (or line) of at least :data:`LARGE_MESSAGE_BYTES`: it
            was parsed, and a call's arguments are checked and converted, on a worker thread, so
            the loop serves other requests meanwhile (set by the transport that read it).
    """

    __slots__ = (
        "_cancel_callbacks",
        "_open_stream",
        "_stream",
        "_when_opened",
        "argument_errors",
        "cancel_reason",
        "cancelled",
        "client_capabilities",
        "data_only",
        "escalate",
        "job_id",
        "large",
        "loop",
        "message",
        "modern",
        "on_accepted",
        "open_session",
        "opened_session",
        "principal",
        "provenance_id",
        "server",
        "session",
        "slots",
        "stream_opened",
        "task_metadata",
        "trace_headers",
        "transport",
        "version",
        "withdrawn",
    )

    def __init__(
        self,
        message: Message,
        version: str,
        loop: asyncio.AbstractEventLoop,
        session: Session | None = None,
        stream: OutboundStream | None = None,
        client_capabilities: dict[str, Any] | None = None,
        principal: Principal | None = None,
        server: object = None,
    ) -> None:
        self.message = message
        self.version = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        self.modern = self.version.modern
        self.session = session
        self._stream = stream
        self.stream_opened = stream is not None
        self._open_stream: Callable[[], OutboundStream] | None = None
        self._when_opened: Callable[[OutboundStream], None] | None = None
        self.loop = loop
        self.principal = principal
        self.server = server
        if client_capabilities is None:
            client_capabilities = session.client_capabilities if session is not None else {}
        self.client_capabilities = client_capabilities
        self.cancelled = CancelFlag()
        self.cancel_reason: str | None = None
        self.withdrawn = False
        self._cancel_callbacks: list[Callable[[], None]] = []
        self.job_id: str | None = None
        self.provenance_id: str | None = None
        self.escalate: Callable[[str | None], bool] | None = None
        self.slots: dict[Slot[Any], Any] = {}
        """What the parts above the wire keep with this request, by :class:`Slot` (read it
        with :meth:`get`, or with ``slots.get`` into a variable of the slot's type on a hot path)."""
        self.task_metadata: dict[str, Any] = {}
        self.open_session: Callable[[str], Session] | None = None
        self.opened_session: Session | None = None
        self.argument_errors: str | None = None
        self.on_accepted: Callable[[], None] | None = None
        self.data_only = False
        self.large = False
        self.transport: str | None = None
        self.trace_headers: dict[str, str] | None = None

    @property
    def stream(self) -> OutboundStream | None:
        """Where related messages go (see the class text); a deferred stream
        (:meth:`defer_stream`) is made here, when first asked for (loop thread only)."""
        stream = self._stream
        if stream is None and self._open_stream is not None:
            opener, self._open_stream = self._open_stream, None
            stream = self._stream = opener()
            self.stream_opened = True
            opened, self._when_opened = self._when_opened, None
            if opened is not None:
                opened(stream)
        return stream

    @stream.setter
    def stream(self, stream: OutboundStream | None) -> None:
        self._stream = stream
        self.stream_opened = stream is not None
        self._open_stream = None

    def defer_stream(self, opener: Callable[[], OutboundStream]) -> None:
        """Give the request a stream made by ``opener()`` when first asked for (:attr:`stream`):
        most requests send nothing before their response, and a JSON reply needs no stream."""
        self._stream = None
        self.stream_opened = False
        self._open_stream = opener

    def on_stream_opened(self, callback: Callable[[OutboundStream], None]) -> None:
        """Call ``callback(stream)`` once the request has its stream: now, when it has one; when
        a deferred one is made; never, when it will have none (the transport attaches its writer)."""
        if self._stream is not None:
            callback(self._stream)
        elif self._open_stream is not None:
            self._when_opened = callback

    def get(self, slot: Slot[T]) -> T | None:
        """What ``slot`` holds for this request, or None."""
        value: T | None = self.slots.get(slot)
        return value

    def put(self, slot: Slot[T], value: T) -> None:
        """Keep ``value`` in ``slot`` for the rest of this request."""
        self.slots[slot] = value

    @property
    def request_id(self) -> str | int | None:
        """The JSON-RPC id (None for notifications)."""
        return self.message.id

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``params._meta``."""
        return self.message.meta

    @property
    def progress_token(self) -> str | int | None:
        """``_meta.progressToken`` when the client asked for progress."""
        token = self.meta.get("progressToken")
        return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None

    @property
    def log_level(self) -> str | None:
        """Minimum level for ``notifications/message``; None = the client asked for no logs."""
        if self.modern:
            level = self.meta.get(META_LOG_LEVEL)
            return level if level in LOG_LEVELS else None
        return self.session.log_level if self.session is not None else None

    def send_related(self, message: dict[str, Any]) -> bool:
        """Send a message related to this request on its stream (loop thread only).

        Falls back to the session's standalone stream when the request has no stream of its
        own (handshake era only): the one read in this process, else, when the session is shared
        by several processes, the one another process may read (:attr:`through_store`). Returns
        False when nothing could carry it.

        .. versionchanged:: 1.0
           A shared session's message reaches the GET stream another process holds.
        """
        stream = self.stream
        if stream is not None and not stream.closed and not stream.done:
            stream.send(message)
            return True
        session = self.session
        if session is None or self.modern:
            return False
        standalone = session.standalone
        if session.relay is not None and (standalone is None or not standalone.reading):
            return session.relay.unrelated(session, message)
        if standalone is not None and standalone.sink is not None:
            standalone.send(message)
            return True
        return False

    @property
    def through_store(self) -> bool:
        """True when :meth:`send_related` would hand a message to the shared state store, for the
        session's GET stream whichever process holds it: the request has no open stream of its own,
        and no connection in this process reads that GET stream (loop thread only)."""
        stream = self.stream
        if stream is not None and not stream.closed and not stream.done:
            return False
        session = self.session
        if session is None or self.modern or session.relay is None:
            return False
        return session.standalone is None or not session.standalone.reading

    def set_accepted_callback(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` once the request passed the pipeline's layers and its handler starts."""
        self.on_accepted = callback

    def allow_escalation(self, escalate: Callable[[str | None], bool] | None) -> None:
        """Let the running call become a task: ``escalate(message)`` makes it one and answers
        whether it is one (:meth:`go_on_as_task` asks it); None: it cannot."""
        self.escalate = escalate

    def go_on_as_task(self, message: str | None = None) -> bool:
        """Turn the running call into a task if it may become one (loop thread); True when it is one."""
        return bool(self.escalate(message)) if self.escalate is not None else False

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` (on the loop thread) when the request is cancelled."""
        if self.cancelled.is_set():
            callback()
        else:
            self._cancel_callbacks.append(callback)

    def cancel(self, reason: str | None = None, *, withdrawn: bool = False) -> None:
        """Mark the request cancelled and run the cancel callbacks once.

        Args:
            reason: why, for logs and the function's ``ctx``.
            withdrawn: the client cancelled it (``notifications/cancelled``; or its response stream closed:
                ``Connection.peer_gone``) and expects no response (MCP 2025-11-25, Utilities § Cancellation): the
                transport sends none.
        """
        if self.cancelled.is_set():
            return
        self.withdrawn = withdrawn
        self.cancel_reason = reason
        self.cancelled.set()
        callbacks, self._cancel_callbacks = self._cancel_callbacks, []
        for callback in callbacks:
            callback()
