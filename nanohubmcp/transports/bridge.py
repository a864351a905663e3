"""``nanohubmcp bridge URL``: a desktop client's stdio on one side, a running server's URL on the other.

The bridge reads JSON-RPC messages line by line from stdin (what a desktop client writes to a
server it launched) and sends each to the server over Streamable HTTP; whatever the server sends
back — responses, progress and log notifications, server→client requests such as elicitation,
change notifications on the session's GET stream — is written to stdout, one message per line.
The client's answers to server→client requests travel back the same way. No Node is needed.

Streamable HTTP (MCP 2025-11-25, Transports § Streamable HTTP): every message is its own POST
with ``Accept: application/json, text/event-stream``; the ``Mcp-Session-Id`` the server returns
with the ``initialize`` result is echoed on every later request, with ``MCP-Protocol-Version``;
after the handshake a GET stream carries messages unrelated to a request and is resumed with
``Last-Event-ID`` when it drops. A 2026-07-28 request (``_meta`` names the version) gets the
headers that era requires (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, and
``Mcp-Param-*`` for tool arguments the server marked with ``x-mcp-header``, learnt from
``tools/list`` results passing through); its ``notifications/cancelled`` closes the request's
response stream, which is how that era cancels over HTTP.

Legacy HTTP+SSE (MCP 2024-11-05, Transports § HTTP with SSE): a URL ending in ``/sse``, or a
server that answers the first POST with 404 or 405, is reached by ``GET`` on its SSE endpoint;
the ``endpoint`` event names where to POST, and every server message arrives on that stream.

Every request carries :attr:`BridgeOptions.headers`: ``--header``, ``--cookie``, and ``--token``
(default ``$MCP_TOKEN``) as ``Authorization: Bearer``. :attr:`BridgeOptions.accept` is the
POST's ``Accept`` header: ``text/event-stream`` alone for a jupyter-server-proxy route
(``…/proxy/<port>/…``), which streams a reply only to a request accepting exactly that and holds
any other reply until the call ends (progress would arrive with the result, and an elicitation
mid-call would time out); both types elsewhere, as the specification asks.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from tornado import httputil
from tornado.http1connection import HTTP1Connection, HTTP1ConnectionParameters
from tornado.iostream import IOStream, StreamClosedError
from tornado.tcpclient import TCPClient

from ..errors import ConfigurationError, InternalError, ParseError, error_response
from ..server.modern.headers import NAME_FIELDS, header_marks
from ..server.request import META_PROTOCOL_VERSION
from .base import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER, MCP_SESSION_ID_HEADER
from .lines import TOO_LONG, LineReader, LineWriter, protect_stdout, stop_on_signals

log = logging.getLogger("nanohubmcp.bridge")

CONNECT_TIMEOUT = 15.0
"""Seconds to open a connection to the server."""
RECONNECT_SECONDS = 1.0
"""Pause before a dropped GET stream is resumed (unless the server named its own ``retry``)."""
DRAIN_SECONDS = 10.0
"""At end of input, how long requests already sent may take to be answered before the bridge exits."""
MAX_RECONNECTS = 5
"""Consecutive failed attempts to resume the GET stream before the bridge gives up on it."""
_HEADER_SAFE = frozenset(chr(c) for c in range(0x21, 0x7F)) | {" "}
_JUPYTER_PROXY_ROUTE = re.compile(r"/proxy/\d{1,5}/")
"""A jupyter-server-proxy route in a URL's path: ``<Jupyter base URL>proxy/<port>/``."""
SSE_ONLY = "text/event-stream"
"""The POST ``Accept`` for a jupyter-server-proxy route (see the module docstring)."""


@dataclass
class BridgeOptions:
    """What the bridge connects to and sends with every request.

    Attributes:
        url: the server's Streamable HTTP endpoint (``.../mcp``), or its legacy ``.../sse``.
        headers: sent with every request (``Cookie`` included).
        accept: the POST's ``Accept`` header (:data:`SSE_ONLY` for a jupyter-server-proxy route).
    """

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    accept: str = "application/json, text/event-stream"

    @classmethod
    def from_arguments(
        cls, url: str, *, headers: list[str], cookies: list[str], token: str | None = None
    ) -> BridgeOptions:
        """Options from the command line: ``--header 'Name: value'``, ``--cookie 'name=value'``,
        ``--token T`` (sent as ``Authorization: Bearer T``; an ``Authorization`` header wins).

        A base URL (``http://host:8000/`` or a weber path) gets ``mcp`` appended.

        Raises:
            ConfigurationError: a URL that is not http(s), a header without a colon, a cookie
                without ``=``.
        """
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigurationError(f"URL must be an http:// or https:// URL, got {url!r}")
        path = parts.path.rstrip("/")
        if not (path.endswith("/mcp") or path.endswith("/sse")):
            url = parts._replace(path=f"{path}/mcp").geturl()
        sent: dict[str, str] = {}
        for header in headers:
            name, sep, value = header.partition(":")
            if not sep or not name.strip():
                raise ConfigurationError(f"--header takes 'Name: value', got {header!r}")
            sent[name.strip()] = value.strip()
        jar = [c.strip() for c in cookies if c.strip()]
        for cookie in jar:
            if "=" not in cookie:
                raise ConfigurationError(f"--cookie takes 'name=value', got {cookie!r}")
        if jar:
            sent["Cookie"] = "; ".join(filter(None, [sent.get("Cookie", ""), *jar]))
        if token and not any(name.lower() == "authorization" for name in sent):
            sent["Authorization"] = f"Bearer {token}"
        if _JUPYTER_PROXY_ROUTE.search(urlsplit(url).path):
            return cls(url=url, headers=sent, accept=SSE_ONLY)
        return cls(url=url, headers=sent)


class HTTPFailure(Exception):
    """The server could not be reached, or answered outside the protocol."""


class Exchange(httputil.HTTPMessageDelegate):
    """One HTTP request and its streamed response (Tornado's HTTP/1.1 client connection)."""

    def __init__(self, on_event: Callable[[dict[str, str]], None] | None = None) -> None:
        self.status = 0
        self.reason = ""
        self.headers = httputil.HTTPHeaders()
        self.body = bytearray()
        self.on_event = on_event
        self.stream: IOStream | None = None
        self._pending = ""
        self._event: dict[str, str] = {}

    @property
    def is_sse(self) -> bool:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower() == "text/event-stream"

    def headers_received(self, start_line: Any, headers: httputil.HTTPHeaders) -> None:
        self.status = start_line.code
        self.reason = start_line.reason
        self.headers = headers

    def data_received(self, chunk: bytes) -> None:
        if not (self.is_sse and self.status == 200 and self.on_event is not None):
            self.body += chunk
            return
        self._pending += chunk.decode("utf-8", errors="replace")
        *complete, self._pending = self._pending.replace("\r\n", "\n").split("\n")
        for line in complete:  # HTML Living Standard § Server-sent events, parsing an event stream
            if not line:
                if self._event:
                    self.on_event(self._event)
                self._event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data" and "data" in self._event:
                    self._event["data"] += "\n" + value
                else:
                    self._event[name] = value

    def close(self) -> None:
        """Abandon the exchange (the connection closes)."""
        if self.stream is not None:
            self.stream.close()

    async def run(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> Exchange:
        """Send the request and read the whole response (an SSE body event by event).

        Raises:
            HTTPFailure: no connection, or it broke before a response began.
        """
        parts = urlsplit(url)
        secure = parts.scheme == "https"
        port = parts.port or (443 if secure else 80)
        host = parts.hostname or ""
        try:
            self.stream = await TCPClient().connect(
                host,
                port,
                ssl_options=ssl.create_default_context() if secure else None,
                timeout=CONNECT_TIMEOUT,
            )
        except (OSError, StreamClosedError, asyncio.TimeoutError, ssl.SSLError) as exc:
            raise HTTPFailure(f"cannot connect to {parts.netloc}: {exc}") from None
        sent = httputil.HTTPHeaders(headers)
        sent["Host"] = parts.netloc
        sent["Connection"] = "close"
        if body is not None:
            sent["Content-Length"] = str(len(body))
        connection = HTTP1Connection(
            self.stream, True, HTTP1ConnectionParameters(no_keep_alive=True, decompress=False, max_body_size=1 << 50)
        )
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            await connection.write_headers(httputil.RequestStartLine(method, path, "HTTP/1.1"), sent)
            if body:
                await connection.write(body)
            connection.finish()
            await connection.read_response(self)
        except (StreamClosedError, httputil.HTTPInputError, OSError) as exc:
            if self.status == 0:
                raise HTTPFailure(f"{method} {url} failed: {exc or type(exc).__name__}") from None
        finally:
            connection.close()
        return self


class ResponseStream:
    """The SSE events answering one POSTed request, and their resumption.

    A server may end a request's SSE response before the response itself and let the client
    resume it: a GET with ``Last-Event-ID`` (MCP 2025-11-25, Transports § Resumability, SEP-1699).
    The bridge does that for its client, which knows nothing of HTTP.
    """

    def __init__(self, bridge: Bridge, request_id: Any) -> None:
        self.bridge = bridge
        self.request_id = request_id
        self.last_id: str | None = None
        self.retry = RECONNECT_SECONDS
        self.answered = request_id is None  # a notification waits for nothing

    def relay(self, event: dict[str, str]) -> None:
        if event.get("id"):
            self.last_id = event["id"]
        if event.get("retry", "").isdigit():
            self.retry = int(event["retry"]) / 1000
        message = self.bridge.relay_event(event)
        if isinstance(message, dict) and "method" not in message and message.get("id") == self.request_id:
            self.answered = True

    async def resume(self, headers: dict[str, str]) -> None:
        """GET the rest of the stream until the response came (or the server cannot resume it)."""
        bridge = self.bridge
        for _ in range(MAX_RECONNECTS):
            if self.answered or not self.last_id or not bridge.session_id:
                break
            await asyncio.sleep(self.retry)
            sent = {name: value for name, value in headers.items() if name != "Content-Type"}
            sent.update(
                {"Accept": "text/event-stream", "Last-Event-ID": self.last_id, MCP_SESSION_ID_HEADER: bridge.session_id}
            )
            exchange = await Exchange(self.relay).run("GET", bridge.options.url, sent)
            if exchange.status != 200:
                break
        if not self.answered:
            bridge.fail(
                self.request_id, "the server ended the response stream before answering and it could not be resumed"
            )


class Bridge:
    """Relays one stdio client to one server URL (see the module docstring)."""

    def __init__(self, options: BridgeOptions, writer: LineWriter) -> None:
        self.options = options
        self.writer = writer
        self.legacy = urlsplit(options.url).path.rstrip("/").endswith("/sse")
        self.session_id: str | None = None
        self.version: str | None = None
        self.marks: dict[str, list[tuple[tuple[str, ...], str, str]]] = {}
        self.ready: asyncio.Future[None] | None = None  # set while initialize is under way
        self.open: dict[Any, Exchange] = {}  # 2026-07-28 requests in flight, by id
        self.tasks: set[asyncio.Task[Any]] = set()  # the GET stream's
        self.forwards: set[asyncio.Task[Any]] = set()  # one per message from the client
        self.endpoint: str | None = None  # legacy: where to POST
        self.standalone: Exchange | None = None
        self.done = asyncio.Event()  # the server side ended for good

    # -- output to the client -------------------------------------------------------------
    def emit(self, message: Any) -> None:
        self.writer.write(message)
        self._learn(message)

    def fail(self, request_id: Any, text: str) -> None:
        """Answer the client's request with an error (the server could not)."""
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
        if not line.strip():
            return
        if line is TOO_LONG:
            self.fail(None, "a message longer than the line limit was dropped")
            return
        try:
            message = json.loads(line)
        except ValueError:
            self.emit(error_response(ParseError("Parse error: the line is not JSON")))
            return
        task = asyncio.ensure_future(self.forward(line.strip(), message))
        self.forwards.add(task)
        task.add_done_callback(self.forwards.discard)

    async def forward(self, body: bytes, message: Any) -> None:
        if not isinstance(message, dict):
            message = {}  # a batch (2025-03-26): relayed as it is, answered as one array
        request_id = message.get("id") if "method" in message else None
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
            self.fail(request_id, str(exc))
        except Exception:  # never let one message end the bridge
            log.exception("internal error forwarding a message")
            self.fail(request_id, "the bridge failed to forward this message; see its log (stderr)")

    async def post(self, body: bytes, message: Any, request_id: Any) -> None:
        if self.legacy:
            await self.post_legacy(body, request_id)
            return
        if self._cancels_modern(message):
            return
        headers = {**self.options.headers, "Content-Type": "application/json", "Accept": self.options.accept}
        modern = self._modern_headers(message)
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
        if exchange.status in (404, 405) and self.session_id is None and self.version is None and modern is None:
            # Not a Streamable HTTP endpoint: a 2024-11-05 server (MCP 2025-03-26, Transports §
            # Backwards compatibility).
            self.legacy = True
            self.options.url = _legacy_url(self.options.url)
            await self.post_legacy(body, request_id)
            return
        self._answer(exchange, request_id)
        if exchange.is_sse and exchange.status == 200 and not stream.answered:
            await stream.resume(headers)
        if exchange.status == 200 and message.get("method") == "initialize":
            self.session_id = exchange.headers.get(MCP_SESSION_ID_HEADER) or None
            if self.session_id:
                self._start(self.listen())

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
            if isinstance(reply, list) or "result" in reply or ("error" in reply and reply.get("id") is not None):
                self.emit(reply)
                return
        if exchange.status == 404 and self.session_id:
            self.session_id = None
            self.fail(
                request_id,
                "the server no longer knows this session (it restarted or the session "
                "expired); restart the client's connection to start a new one",
            )
            return
        snippet = " ".join(text.decode("utf-8", errors="replace").split())[:200]
        self.fail(
            request_id,
            f"HTTP {exchange.status} {exchange.reason} from {self.options.url}" + (f": {snippet}" if snippet else ""),
        )

    def relay_event(self, event: dict[str, str]) -> Any:
        """Relay one SSE event's message to the client; returns the message (None for none)."""
        data = event.get("data")
        if not data or event.get("event", "message") != "message":
            return None
        try:
            message = json.loads(data)
        except ValueError:
            log.warning("the server sent an event that is not JSON: %.200s", data)
            return None
        self.emit(message)
        return message

    # -- 2026-07-28 requests --------------------------------------------------------------
    def _modern_headers(self, message: Any) -> dict[str, str] | None:
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
        if not isinstance(version, str):
            return None
        method = str(message.get("method", ""))
        headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: method}
        named = params.get(NAME_FIELDS.get(method, ""))  # type: ignore[union-attr]
        if isinstance(named, str):
            headers[MCP_NAME_HEADER] = header_value(named)
        arguments = params.get("arguments")  # type: ignore[union-attr]
        if method == "tools/call" and isinstance(arguments, dict):
            for path, token, _kind in self.marks.get(str(params.get("name")), []):  # type: ignore[union-attr]
                value: Any = arguments
                for part in path:
                    value = value.get(part) if isinstance(value, dict) else None
                if value is not None:
                    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
                    headers[f"Mcp-Param-{token}"] = header_value(text)
        return headers

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
    async def listen(self) -> None:
        """Keep the session's GET stream open (resuming after drops) while the session lives."""
        last_id: str | None = None
        failures = 0
        while self.session_id and not self.done.is_set():
            retry = RECONNECT_SECONDS

            def relay(event: dict[str, str]) -> None:
                nonlocal last_id, retry
                if event.get("id"):
                    last_id = event["id"]
                if event.get("retry", "").isdigit():
                    retry = int(event["retry"]) / 1000
                self.relay_event(event)

            headers = {**self.options.headers, "Accept": "text/event-stream", MCP_SESSION_ID_HEADER: self.session_id}
            if self.version:
                headers[MCP_PROTOCOL_VERSION_HEADER] = self.version
            if last_id:
                headers["Last-Event-ID"] = last_id
            exchange = self.standalone = Exchange(relay)
            try:
                await exchange.run("GET", self.options.url, headers)
            except HTTPFailure as exc:
                log.info("the GET stream dropped: %s", exc)
            if exchange.status in (404, 405, 409) or (exchange.status >= 400 and failures >= MAX_RECONNECTS):
                return  # no stream for this session (or one is open elsewhere); requests still work
            failures = 0 if exchange.status == 200 else failures + 1
            await asyncio.sleep(retry)

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
                found.set_exception(
                    error
                    or HTTPFailure(
                        f"GET {self.options.url} answered HTTP {exchange.status} {exchange.reason} without an "
                        "endpoint event: is this an MCP server's URL?"
                    )
                )
            elif not self.done.is_set():
                log.warning("the server closed its SSE stream; the session is over")
                self.done.set()

        stream.add_done_callback(ended)
        self.tasks.add(stream)
        self.endpoint = await found

    # -- life cycle -----------------------------------------------------------------------
    def _start(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

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


def header_value(text: str) -> str:
    """``text`` as an HTTP header value: itself when plain ASCII, else ``=?base64?…?=`` (SEP-2243)."""
    if text and all(ch in _HEADER_SAFE for ch in text) and text == text.strip():
        return text
    return f"=?base64?{base64.b64encode(text.encode()).decode()}?="


def _legacy_url(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    base = path[: -len("/mcp")] if path.endswith("/mcp") else path
    return parts._replace(path=f"{base}/sse").geturl()


def run_bridge(options: BridgeOptions) -> int:
    """Relay stdin/stdout to ``options.url`` until the client closes stdin (or SIGINT/SIGTERM).

    Returns:
        The exit status: 0 when the client ended the session, 1 when the server's side did.
    """
    writer = LineWriter(protect_stdout())
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="nanohubmcp bridge: %(message)s")

    async def main() -> int:
        bridge = Bridge(options, writer)
        reader = LineReader()
        stop = asyncio.Event()
        stop_on_signals(stop)
        stops = (asyncio.ensure_future(stop.wait()), asyncio.ensure_future(bridge.done.wait()))
        try:
            while not writer.closed:
                line = await reader.get(*stops)
                if line is None:
                    break
                bridge.receive(line)
        finally:
            reader.close()
            for waiter in stops:
                waiter.cancel()
            ended_by_server = bridge.done.is_set() and not stop.is_set()
            # At end of input, answers already on their way still reach the client.
            await bridge.close(drain=0.0 if (stop.is_set() or ended_by_server) else DRAIN_SECONDS)
        return 1 if ended_by_server else 0

    return asyncio.run(main())
