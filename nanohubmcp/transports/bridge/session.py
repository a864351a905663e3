"""The MCP session the bridge relays: the client's messages POSTed to the server, its answers back.

Streamable HTTP (MCP 2025-11-25, Transports § Streamable HTTP), the 2026-07-28 request headers,
and the legacy HTTP+SSE fallback (MCP 2024-11-05, Transports § HTTP with SSE) are described in
the :mod:`nanohubmcp.transports.bridge` package docstring. Owns :class:`Bridge`: the session's
id, version and handshake, forwarding each client line as a POST (or, legacy, to the endpoint),
relaying answers and the GET stream back, and closing. A request's resumed SSE response is
:mod:`.response_stream`'s, the 2026-07-28 request headers :mod:`.headers`', a forgotten
session's renewal :mod:`.renewal`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any
from urllib.parse import urljoin, urlsplit

from ...errors import InternalError, ParseError, error_response
from ...server.stateless.headers import header_marks
from ..config import DEFAULT_MAX_REQUEST_BYTES
from ..headers import MCP_PROTOCOL_VERSION_HEADER, MCP_SESSION_ID_HEADER
from ..lines import LineWriter, TooLong, too_long_response
from .exchange import Exchange, HTTPFailure
from .headers import Mark, modern_headers
from .options import BridgeOptions, legacy_url
from .pending import Unanswered
from .refusal import jupyter_message, jupyter_refusal, proxy_hint, refused_by_jupyter, server_said
from .renewal import forgot, renew
from .response_stream import MAX_RECONNECTS, RECONNECT_SECONDS, ResponseStream, retry_seconds

log = logging.getLogger("nanohubmcp.bridge")

MAX_LINE_BYTES = DEFAULT_MAX_REQUEST_BYTES
"""Longest message line the bridge relays: the HTTP server's own default body limit
(``max_request_bytes``, 16 MiB), so whatever a default server accepts gets through. A server
with a lower limit answers 413, which reaches the client as its JSON-RPC error."""

MAX_RENEW_PAUSE_SECONDS = 10.0
"""The longest pause between the GET stream's attempts to open a new session on a server that forgot the
old one, while the attempts fail (a proxy answering 404 until the restarted server is up)."""

MAX_UNSTREAMED_RENEWALS = 3
"""The most sessions the GET stream opens in a row while the server opens no stream for any of them (a server
restarting again and again before the bridge listens; a server that forgets every session at once)."""


class Bridge:
    """Relays one stdio client to one server URL (see the module docstring)."""

    def __init__(self, options: BridgeOptions, writer: LineWriter) -> None:
        self.options = options
        self.writer = writer
        self.legacy = urlsplit(options.url).path.rstrip("/").endswith("/sse")
        self.session_id: str | None = None
        self.version: str | None = None
        self.marks: dict[str, list[Mark]] = {}
        self.ready: asyncio.Future[None] | None = None  # set while initialize is under way
        self.open: dict[Any, Exchange] = {}  # 2026-07-28 requests in flight, by id
        self.tasks: set[asyncio.Task[Any]] = set()  # the GET stream's
        self.forwards: dict[asyncio.Task[Any], Any] = {}  # one per message from the client: its request's id
        self.endpoint: str | None = None  # legacy: where to POST
        self.standalone: Exchange | None = None
        self.done = asyncio.Event()  # the server side ended for good
        self.handshake: bytes | None = None  # the client's initialize, replayed if the server forgets the session
        self.renewing = asyncio.Lock()
        self.listener: asyncio.Task[Any] | None = None
        self.pending = Unanswered()  # the client's requests not answered yet

    # -- output to the client -------------------------------------------------------------
    def emit(self, message: Any, *, withdrawn: bool = False) -> None:
        """Write ``message`` to the client; an answer to a withdrawn request only if it is the bridge's own
        (``withdrawn``: at its stop), others are dropped (:meth:`.pending.Unanswered.superseded`)."""
        if not withdrawn and self.pending.superseded(message):
            return
        self.writer.write(message)
        self._learn(message)
        self.pending.answered(message)

    def fail(self, request_id: Any, text: str) -> None:
        """Answer the client's request with an error (the server could not), and say it on stderr;
        neither shows a credential (:meth:`~.options.BridgeOptions.shown`)."""
        text = self.options.shown(text)
        log.warning("%s", text)
        if request_id is not None:
            self.emit(error_response(InternalError(text), request_id))

    def _learn(self, message: Any) -> None:
        """Remember what later requests need from the results passing by."""
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(result, dict):
            return
        if isinstance(result.get("protocolVersion"), str) and "serverInfo" in result:
            self.version = result["protocolVersion"]
        for tool in result.get("tools") or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                with contextlib.suppress(Exception):
                    self.marks[tool["name"]] = header_marks(tool["name"], tool.get("inputSchema") or {})

    # -- input from the client ------------------------------------------------------------
    def receive(self, line: bytes) -> None:
        """Forward one line from the client; a line over :data:`MAX_LINE_BYTES` (a
        :class:`~nanohubmcp.transports.lines.TooLong`) is answered as ``nanohubmcp run --transport
        stdio`` answers it: -32600, with the request's id when its first bytes name it."""
        if isinstance(line, TooLong):
            log.warning("refused a message longer than %d bytes (the bridge's line limit)", MAX_LINE_BYTES)
            self.emit(too_long_response(line, MAX_LINE_BYTES))
            return
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            self.emit(error_response(ParseError("Parse error: the line is not JSON")))
            return
        task = asyncio.ensure_future(self.forward(line.strip(), message))
        self.forwards[task] = message.get("id") if isinstance(message, dict) and "method" in message else None
        task.add_done_callback(self._forwarded)

    def _forwarded(self, task: asyncio.Task[Any]) -> None:
        self.forwards.pop(task, None)
        self.pending.progressed.set()

    def settled(self) -> bool:
        """Whether nothing the client sent waits for the server (:meth:`.pending.Unanswered.settled`)."""
        return self.pending.settled(self.forwards.values())

    async def forward(self, body: bytes, message: Any) -> None:
        if not isinstance(message, dict):
            message = {}  # a batch (2025-03-26): relayed as it is, answered as one array
        request_id = message.get("id") if "method" in message else None
        self.pending.sent(message)
        if message.get("method") == "notifications/cancelled" and isinstance(message.get("params"), dict):
            self.pending.withdraw(message["params"].get("requestId"))  # the server answers it no more
        try:
            if message.get("method") == "initialize" and self.ready is None:
                self.ready = asyncio.get_running_loop().create_future()
                try:
                    await self.post(body, message, request_id)
                finally:
                    if not self.ready.done():
                        self.ready.set_result(None)
                return
            if self.ready is not None:
                await self.ready
            await self.post(body, message, request_id)
        except HTTPFailure as exc:
            if not self.pending.is_withdrawn(request_id):  # (cancelled on the server: no answer is awaited)
                self.fail(request_id, str(exc))
        except Exception:  # never let one message end the bridge
            log.exception("internal error forwarding a message")
            self.fail(request_id, "the bridge failed to forward this message; see its log (stderr)")
        finally:
            self.pending.forwarded(request_id, answered_later=self.legacy)

    async def post(self, body: bytes, message: Any, request_id: Any, renewed: bool = False) -> None:
        self.pending.posted(request_id)
        if self.legacy:
            await self.post_legacy(body, request_id)
            return
        if self._cancels_modern(message):
            return
        headers = {**self.options.headers, "Content-Type": "application/json", "Accept": self.options.accept}
        modern = modern_headers(message, self.marks)
        if modern is not None:
            headers.update(modern)
        else:
            if self.session_id:
                headers[MCP_SESSION_ID_HEADER] = self.session_id
            if self.version:
                headers[MCP_PROTOCOL_VERSION_HEADER] = self.version
        stream = ResponseStream(self, request_id)
        exchange = Exchange(stream.relay)
        if modern is not None and request_id is not None:
            self.open[request_id] = exchange
        try:
            await exchange.run("POST", self.options.url, headers, body)
        finally:
            self.open.pop(request_id, None)
        if self.pending.is_withdrawn(request_id):
            return  # cancelled on the server: the stream it ended without an answer is not resumed
        sent_session = headers.get(MCP_SESSION_ID_HEADER)
        if exchange.status == 404 and sent_session and not renewed and await renew(self, sent_session):
            await self.post(body, message, request_id, renewed=True)
            return
        if (
            exchange.status in (404, 405) and self.session_id is None and self.version is None and modern is None
            and not refused_by_jupyter(self.options.url, exchange.body.decode("utf-8", errors="replace"))
        ):
            # Not a Streamable HTTP endpoint: a 2024-11-05 server (MCP 2025-03-26, Transports §
            # Backwards compatibility). Jupyter's own 404 (the extension's: no notebook server on that
            # port) is not: its message is what the client needs.
            self.legacy = True
            self.options.url = legacy_url(self.options.url)
            await self.post_legacy(body, request_id)
            return
        self._answer(exchange, request_id)
        if exchange.is_sse and exchange.status == 200 and not stream.answered:
            await stream.resume(headers)
        if exchange.status == 200 and message.get("method") == "initialize":
            self.handshake = body
            self.session_id = exchange.headers.get(MCP_SESSION_ID_HEADER) or None
            self.listen_now()

    def _answer(self, exchange: Exchange, request_id: Any) -> None:
        """Relay a POST's JSON reply (SSE events were relayed as they came) or explain its failure."""
        if exchange.status == 202 or (exchange.is_sse and exchange.status == 200):
            return
        text = bytes(exchange.body)
        try:
            reply = json.loads(text) if text.strip() else None
        except ValueError:
            reply = None
        if isinstance(reply, (dict, list)):
            if isinstance(reply, dict) and "error" in reply and reply.get("id") is None and request_id is not None:
                reply["id"] = request_id  # an HTTP-level refusal names no id; the client needs it
            if isinstance(reply, list) or "result" in reply or "error" in reply:  # (id-less: a batch's, as stdio's)
                self.emit(reply)
                return
        body = text.decode("utf-8", errors="replace")
        where = f"HTTP {exchange.status} {exchange.reason} from {self.options.url}"
        if exchange.status == 404 and self.session_id and jupyter_message(body) is None:
            # The session is kept (not dropped): the next request, or the GET stream, tries a new one again.
            self.fail(
                request_id,
                "the server no longer knows this session (it restarted or the session expired) and did not "
                "open a new one; the bridge tries again with the next request",
            )
            return
        refusal = jupyter_refusal(self.options.url, exchange.status, body)
        said = refusal or server_said(body)
        self.fail(request_id, where + (f": {said}" if said else "") + proxy_hint(self.options.url, exchange.status))

    def relay_event(self, event: dict[str, str]) -> Any:
        """Relay one SSE event's message to the client; returns the message (None for none)."""
        data = event.get("data")
        if not data or event.get("event", "message") != "message":
            return None
        try:
            message = json.loads(data)
        except ValueError:
            log.warning("%s", self.options.shown(f"the server sent an event that is not JSON: {data[:200]}"))
            return None
        self.emit(message)
        return message

    # -- 2026-07-28 requests --------------------------------------------------------------
    def _cancels_modern(self, message: Any) -> bool:
        """A ``notifications/cancelled`` for a 2026-07-28 request closes its response stream."""
        if not (isinstance(message, dict) and message.get("method") == "notifications/cancelled"):
            return False
        params = message.get("params")
        exchange = self.open.pop(params.get("requestId"), None) if isinstance(params, dict) else None
        if exchange is None:
            return False
        exchange.close()
        return True

    # -- the session's GET stream ---------------------------------------------------------
    def listen_now(self) -> None:
        """Start :meth:`listen` for the current session unless it already runs (it follows renewals)."""
        if self.session_id and (self.listener is None or self.listener.done()):
            self.listener = asyncio.ensure_future(self.listen())
            self.tasks.add(self.listener)
            self.listener.add_done_callback(self.tasks.discard)

    async def listen(self) -> None:
        """Keep the session's GET stream open (resuming after drops) while the session lives.

        A 404 for a session whose stream the server had opened (HTTP 200), or for one the server refuses a ping
        for too (:func:`.renewal.forgot`: a session the bridge opened that the server, restarted again, forgot
        before its stream opened), means the server forgot it (it restarted, or the session expired): the bridge
        opens a new session (:meth:`_renewed`), at most once per session, and listens on it; at most
        :data:`MAX_UNSTREAMED_RENEWALS` in a row while no stream opens. While that fails (a proxy answering 404
        until the restarted server is up) it tries again, the pause doubling from the stream's retry to
        :data:`MAX_RENEW_PAUSE_SECONDS`, as long as the bridge runs. A 404 for a session whose stream never
        opened and that the server still knows (a server whose GET reaches a process that does not hold the
        session) ends the listening: requests still work.
        """
        last_id: str | None = None
        failures = 0
        unrenewed = 0  # failed attempts to open a new session in place of the current one
        unstreamed = 0  # sessions opened since a GET stream last opened
        streamed: str | None = None  # the last session whose GET stream the server opened
        session = self.session_id
        while self.session_id and not self.done.is_set():
            retry = RECONNECT_SECONDS
            if session != self.session_id:  # renewed: a new session's stream starts afresh
                session, last_id = self.session_id, None

            def relay(event: dict[str, str]) -> None:
                nonlocal last_id, retry
                if event.get("id"):
                    last_id = event["id"]
                if (asked := retry_seconds(event.get("retry"))) is not None:
                    retry = asked
                self.relay_event(event)

            headers = {**self.options.headers, "Accept": "text/event-stream", MCP_SESSION_ID_HEADER: session}
            if self.version:
                headers[MCP_PROTOCOL_VERSION_HEADER] = self.version
            if last_id:
                headers["Last-Event-ID"] = last_id
            exchange = self.standalone = Exchange(relay)
            try:
                await exchange.run("GET", self.options.url, headers)
            except HTTPFailure as exc:
                log.info("the GET stream dropped: %s", exc)
            if exchange.status == 200:
                streamed, unstreamed = session, 0
            if exchange.status == 404 and session != self.session_id:
                continue  # the session was renewed meanwhile: listen on the new one
            if exchange.status == 404 and session is not None and (
                session == streamed or (unstreamed < MAX_UNSTREAMED_RENEWALS and await forgot(self, session))
            ):
                # The server restarted: a new session (the client told its lists changed), then its stream.
                renewed = await self._renewed(session)
                unrenewed, unstreamed = (0, unstreamed + 1) if renewed else (unrenewed + 1, unstreamed)
                await asyncio.sleep(min(retry * 2 ** unrenewed, MAX_RENEW_PAUSE_SECONDS) if unrenewed else retry)
                continue
            if exchange.status in (404, 405, 409) or (exchange.status >= 400 and failures >= MAX_RECONNECTS):
                return  # no stream for this session (or one is open elsewhere); requests still work
            failures = 0 if exchange.status == 200 else failures + 1
            await asyncio.sleep(retry)

    async def _renewed(self, forgotten: str) -> bool:
        """Whether a new session replaced ``forgotten``, which the server answered 404 for on the GET stream
        (:func:`.renewal.renew`): the client hears of a restarted server's lists before its next request."""
        try:
            return await renew(self, forgotten)
        except HTTPFailure as exc:
            log.info("%s", self.options.shown(f"could not open a new session: {exc}"))
            return False

    # -- legacy HTTP+SSE ------------------------------------------------------------------
    async def post_legacy(self, body: bytes, request_id: Any) -> None:
        if self.endpoint is None:
            await self._open_legacy()
        assert self.endpoint is not None
        headers = {**self.options.headers, "Content-Type": "application/json"}
        exchange = await Exchange().run("POST", self.endpoint, headers, body)
        if exchange.status not in (200, 202):
            self._answer(exchange, request_id)

    async def _open_legacy(self) -> None:
        found = asyncio.get_running_loop().create_future()

        def on_event(event: dict[str, str]) -> None:
            if event.get("event") == "endpoint":
                if not found.done():
                    found.set_result(urljoin(self.options.url, event.get("data", "").strip()))
                return
            self.relay_event(event)

        exchange = self.standalone = Exchange(on_event)
        headers = {**self.options.headers, "Accept": "text/event-stream"}
        stream = asyncio.ensure_future(exchange.run("GET", self.options.url, headers))

        def ended(task: asyncio.Future[Any]) -> None:
            if not found.done():
                error = task.exception() if not task.cancelled() else None
                said = server_said(exchange.body.decode("utf-8", errors="replace"))
                found.set_exception(
                    error
                    or HTTPFailure(
                        f"GET {self.options.url} answered HTTP {exchange.status} {exchange.reason} without an "
                        "endpoint event: is this an MCP server's URL?" + (f" It said: {said}" if said else "")
                    )
                )
            elif not self.done.is_set():
                log.warning("the server closed its SSE stream; the session is over")
                self.done.set()

        stream.add_done_callback(ended)
        self.tasks.add(stream)
        self.endpoint = await found

    # -- life cycle -----------------------------------------------------------------------
    async def close(self, drain: float = 0.0) -> None:
        """End the session on the server (best effort) and drop every connection.

        Args:
            drain: seconds to let requests already sent get their answers first.
        """
        if drain and self.forwards:
            await asyncio.wait(set(self.forwards), timeout=drain)
        self.done.set()
        session, self.session_id = self.session_id, None
        for exchange in [*self.open.values(), *([self.standalone] if self.standalone else [])]:
            exchange.close()
        if session and not self.legacy:
            headers = {**self.options.headers, MCP_SESSION_ID_HEADER: session}
            if self.version:
                headers[MCP_PROTOCOL_VERSION_HEADER] = self.version
            with contextlib.suppress(Exception):
                await asyncio.wait_for(Exchange().run("DELETE", self.options.url, headers), 5)
        for task in [*self.tasks, *self.forwards]:
            task.cancel()
