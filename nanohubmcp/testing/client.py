"""The in-memory MCP client: :class:`MemoryClient` and the error it raises, :class:`RpcError`."""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

from ..errors import InternalError, ProtocolError, to_error_object
from ..errors.codes import INTERNAL_ERROR
from ..protocol import jsondec, jsonenc, versions
from ..server.wire.store_close import wait_closed
from ..transports.memory import MemoryPeer
from .answers import Handler, answer, handlers_of, implied_capabilities, response
from .scratch import scratch_state

if TYPE_CHECKING:
    from ..facade import MCPServer
    from ..server.wire.principal import Principal

__all__ = ["CLIENT_INFO", "MAX_INPUT_ROUNDS", "Handler", "MemoryClient", "RpcError"]

CLIENT_INFO = {"name": "nanohubmcp-memory-client", "version": "1"}
"""The ``clientInfo`` the client sends."""

MAX_INPUT_ROUNDS = 10
"""How many ``input_required`` rounds of one 2026-07-28 request the client answers before it gives up."""

JOB_TASKS_END_SECONDS = 30.0
"""How long closing a client waits for the tasks that followed its jobs on its loop to end."""

_META_VERSION = "io.modelcontextprotocol/protocolVersion"
_META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_META_CLIENT = "io.modelcontextprotocol/clientInfo"
_META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"


class RpcError(ProtocolError):
    """The server answered a request with a JSON-RPC error: ``code``, ``message`` and ``data`` are
    the error object's (``data`` None when it had none).

    Args:
        error: the response's ``error`` member.
    """

    def __init__(self, error: dict[str, Any]) -> None:
        code = error.get("code")
        super().__init__(str(error.get("message")), error.get("data"),
                         code=code if isinstance(code, int) else INTERNAL_ERROR)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class MemoryClient:
    """An MCP client connected to ``server`` in this process: no sockets, no threads of its own.

    Every message goes through the connection seam every transport uses (see
    :mod:`nanohubmcp.transports.memory`), so the call pipeline (middleware, scopes, argument
    schemas), sessions and both protocol eras behave as they do for a client on the wire. Results
    are the JSON values a wire client reads (dicts, lists, strings, numbers).

    ``async with MemoryClient(server) as client`` sends ``initialize`` (and
    ``notifications/initialized``) at ``version``; at 2026-07-28 there is no handshake, and every
    request carries the version, capabilities and client info in its ``_meta``. On leaving, the
    client's session ends and what it still runs is cancelled; the client is then closed (its verbs
    raise ``RuntimeError``). When the server serves on an event loop of its own (``server.start()``), the
    jobs the client started are handed to it then, so they do not end with the client's loop (``asyncio.run``
    returning): one whose function runs on a thread or a Dask cluster goes on and stores its end (read by its
    id). One that runs on the client's loop (an ``async def`` tool's) stays there: it ends as usual while the
    loop goes on (a notebook cell's, an application's), and fails with "the testing client that started this
    job closed while it ran" if the loop ends first. A verb whose caller is cancelled (``anyio.fail_after``,
    ``anyio.move_on_after``) sends ``notifications/cancelled`` for its request, which the server
    withdraws (with ``session=False`` too), and lets the cancellation through; the client stays usable.

    Unless a state directory is named (``state_dir=``, ``NANOHUBMCP_STATE_DIR``, ...), the server keeps its
    jobs, kept results and provenance records in a temporary directory of its own, removed when the process
    exits, not in the default one of its name that a real server uses (:mod:`.scratch`; ``state_dir``). A
    ``server.start()`` (or ``run()``) afterwards serves real clients from the server's own directory again.

    Args:
        server: the ``MCPServer`` to talk to (it need not be started).
        version: the protocol version to speak (default 2025-11-25, the latest with ``initialize``
            and sessions; ``"2026-07-28"``: the stateless era, where elicitation and sampling are
            ``input_required`` rounds the client answers with the same handlers).
        elicitation: answers ``elicitation/create`` (see :data:`Handler`): given ``{message,
            requestedSchema}`` (or ``{mode: "url", url, elicitationId}``), returns
            ``{"action": "accept", "content": {...}}``, ``{"action": "decline"}`` or ``{"action": "cancel"}``.
            Declares the ``elicitation`` capability.
        sampling: answers ``sampling/createMessage``: returns ``{role, content, model, stopReason?}``.
            Declares the ``sampling`` capability.
        roots: the roots ``roots/list`` answers (``[{"uri": "file:///...", "name": ...}]``).
            Declares the ``roots`` capability.
        capabilities: the client capabilities to declare instead of the ones the handlers imply.
        principal: the caller every request comes from, as if the server's ``auth=`` had
            authenticated it (``Principal("ada", {"lab:write"})``): per-tool ``scopes=`` are
            checked against it and tools see it as ``ctx.principal``. None: no authenticated caller.
        log_level: ask for log messages at this level and above (``"debug"``, ``"info"``, ...):
            ``logging/setLevel`` after ``initialize``, or ``_meta`` on every 2026-07-28 request.
            None: the server sends none.
        session: False: send no ``initialize``; each request is then sessionless at ``version``,
            as a plain HTTP POST with an ``MCP-Protocol-Version`` header is (one cancelled by its
            caller is withdrawn at the server, as a stdio client's is; over HTTP no disconnect
            cancels such a POST).

    Raises:
        ValueError: ``version`` is not one the server speaks.

    Example:
        ```python
        async with MemoryClient(server, elicitation=lambda params: {"action": "decline"}) as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})
            assert result["structuredContent"] == {"result": 3}
        ```
    """

    def __init__(
        self,
        server: MCPServer,
        *,
        version: str = versions.LATEST_HANDSHAKE,
        elicitation: Handler | None = None,
        sampling: Handler | None = None,
        roots: list[dict[str, Any]] | None = None,
        capabilities: dict[str, Any] | None = None,
        principal: Principal | None = None,
        log_level: str | None = None,
        session: bool = True,
    ) -> None:
        if version not in versions.SUPPORTED_VERSIONS:
            raise ValueError(f"version {version!r} is not one this server speaks: use one of "
                             f"{', '.join(versions.SUPPORTED_VERSIONS)}")
        self.version = version
        self.modern = version in versions.MODERN_VERSIONS
        """The client speaks the stateless era (2026-07-28)."""
        self.handlers = handlers_of(elicitation, sampling, roots)
        """The server's request methods this client answers, with their handlers (:mod:`.answers`)."""
        self.capabilities = implied_capabilities(self.handlers) if capabilities is None else capabilities
        self.log_level = log_level
        self.opens_session = session and not self.modern
        self.messages: list[dict[str, Any]] = []
        """Every message the server sent outside a response, in order: notifications (progress,
        log messages, list changes) and its requests (elicitation, sampling, roots)."""
        self.state_dir = scratch_state(server)
        """The temporary state directory the server was given (:mod:`.scratch`), None when it keeps its own."""
        self.peer = MemoryPeer(server, self._receive, principal=principal, version=None if session else version)
        self.initialize_result: dict[str, Any] | None = None
        """What ``initialize`` answered (None before it, and in the stateless era)."""
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Future[Any]] = set()
        self.closed = False
        """The client's ``async with`` block ended: its verbs raise ``RuntimeError``."""

    async def __aenter__(self) -> MemoryClient:
        if self.opens_session:
            await self.initialize()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        try:
            await self.peer.hand_over_jobs(JOB_TASKS_END_SECONDS)  # (server.start(): those that can go on)
        finally:  # (also when the caller's deadline ends during the wait: the session ends)
            await wait_closed(self.peer.close())  # (a shared store's queued log entries written first)

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def session_id(self) -> str | None:
        """The id of the session ``initialize`` opened (None without one)."""
        session = self.peer.live_session
        return session.id if session is not None else None

    # -- the wire --------------------------------------------------------------------------
    async def send(self, message: Any) -> Any:
        """Send one raw JSON-RPC message; the response message (None when none is owed).

        The message is sent as written: the envelope, ids and ``_meta`` are the caller's
        (:meth:`envelope` builds them). For tests of the protocol itself, broken clients included:
        a ``str`` or ``bytes`` is the message's raw text (``'{"jsonrpc": '`` gets the -32700 parse error),
        any other value is sent as its JSON (a list is a batch, answered with a list where the version
        has batches, 2024-11-05 and 2025-03-26; ``5`` or ``"x"`` as JSON get -32600). The bytes are answered
        as a stdio server answers them on a line (the same path, :mod:`nanohubmcp.transports.one_peer`): a
        blank text gets no answer (None), one over 4 MiB the -32600 "Message too long".

        A request whose caller is cancelled (``anyio.fail_after``, ``move_on_after``, a task's
        ``cancel()``) is cancelled at the server too, as a wire client does: the client sends
        ``notifications/cancelled`` naming it, and the cancellation goes on to the caller.

        Raises:
            RuntimeError: the client is closed (its ``async with`` block ended).
        """
        if self.closed:
            raise RuntimeError("the client is closed: its `with` block ended; open a new one "
                               "(`async with MemoryClient(server)` or `with in_memory(server)`)")
        body = message.encode() if isinstance(message, str) else message if isinstance(message, bytes) else \
            jsonenc.dumpb(message)
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            # a notification, a response, a batch, junk: nothing to withdraw
            reply = await self.peer.deliver(body)
        else:
            delivery = asyncio.ensure_future(self.peer.deliver(body))
            try:
                reply = await asyncio.shield(delivery)
            except asyncio.CancelledError:
                self._withdraw(message, delivery)
                raise
        if reply is None:
            return None
        return self.peer.connection.received(reply)  # what a wire client reads (-32603 for a result JSON cannot hold)

    def envelope(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> dict[str, Any]:
        """The JSON-RPC message for ``method`` with a fresh id (none when ``notify``), and at
        2026-07-28 the ``_meta`` every request of that era carries."""
        params = dict(params or {})
        if self.modern:
            meta = {_META_VERSION: self.version, _META_CAPABILITIES: self.capabilities, _META_CLIENT: CLIENT_INFO}
            if self.log_level is not None:
                meta[_META_LOG_LEVEL] = self.log_level
            params["_meta"] = {**meta, **params.get("_meta", {})}
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            message["id"] = next(self._ids)
        return message

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request; its ``result``. At 2026-07-28 an ``input_required`` result is answered
        with the client's handlers and the request retried, up to :data:`MAX_INPUT_ROUNDS` times; it
        is returned as is when the client has no handler for one of its requests.

        Raises:
            RpcError: the server answered with an error.
        """
        params = dict(params or {})
        result = await self._request(method, params)
        rounds = 0
        while self.modern and result.get("resultType") == "input_required" and rounds < MAX_INPUT_ROUNDS:
            asked: dict[str, Any] = result.get("inputRequests") or {}
            if any(body.get("method") not in self.handlers for body in asked.values()):
                break
            responses = {key: await answer(self.handlers, body["method"], body.get("params") or {})
                         for key, body in asked.items()}
            params["inputResponses"] = responses
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            result = await self._request(method, params)
            rounds += 1
        return result

    async def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await self.send(self.envelope(method, params))
        if response is None:
            raise RpcError(to_error_object(InternalError(f"{method} got no response (it was withdrawn)")))
        if "error" in response:
            raise RpcError(response["error"])
        result: dict[str, Any] = response["result"]
        return result

    def _withdraw(self, message: dict[str, Any], delivery: asyncio.Future[Any]) -> None:
        """The caller of ``message`` (a request) was cancelled: tell the server, without awaiting
        here (the caller's cancel scope would cancel that too); its late reply is dropped."""
        self._track(delivery)
        delivery.add_done_callback(lambda done: done.cancelled() or done.exception())  # retrieved, not reported
        if delivery.done() or self.closed:
            return
        params = {"requestId": message["id"], "reason": "the client cancelled the request"}
        self._track(asyncio.ensure_future(self.send(self.envelope("notifications/cancelled", params, notify=True))))

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification."""
        await self.send(self.envelope(method, params, notify=True))

    # -- MCP verbs -------------------------------------------------------------------------
    async def initialize(self, **params: Any) -> dict[str, Any]:
        """``initialize`` (opens a session) and ``notifications/initialized``, then
        ``logging/setLevel`` when the client has a ``log_level``; the ``InitializeResult``.
        ``params`` replace the request's own (``protocolVersion``, ``capabilities``, ``clientInfo``).
        """
        result = await self.request("initialize", {
            "protocolVersion": self.version, "capabilities": self.capabilities, "clientInfo": CLIENT_INFO, **params})
        await self.notify("notifications/initialized")
        if self.log_level is not None:
            await self.request("logging/setLevel", {"level": self.log_level})
        self.initialize_result = result
        return result

    async def list_tools(self) -> list[dict[str, Any]]:
        """``tools/list``: the tools (every page), each ``{name, description, inputSchema, ...}``."""
        return await self._all_pages("tools/list", "tools")

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *, progress: bool = False,
                        **params: Any) -> dict[str, Any]:
        """``tools/call``: the ``CallToolResult`` (``{content, structuredContent?, isError?}``).

        A tool's own failure is a result with ``isError: true``, not an exception.

        Args:
            name: the tool.
            arguments: its arguments (``{}`` when None).
            progress: send a progress token, so the tool's ``ctx.report_progress`` sends
                ``notifications/progress`` (see :meth:`notifications`).
            params: more members of the request's ``params`` (``_meta``, ``task``).

        Raises:
            RpcError: a protocol error: an unknown tool (-32602), arguments its schema refuses
                (-32602), a scope the principal lacks, a middleware's refusal.
        """
        if progress:
            params["_meta"] = {"progressToken": f"progress-{next(self._ids)}", **params.get("_meta", {})}
        return await self.request("tools/call", {"name": name, "arguments": arguments or {}, **params})

    async def list_resources(self) -> list[dict[str, Any]]:
        """``resources/list``: the resources (every page), each ``{uri, name, mimeType?, ...}``."""
        return await self._all_pages("resources/list", "resources")

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """``resources/read``: the contents, each ``{uri, mimeType?, text}`` or ``{uri, mimeType?, blob}``.

        Raises:
            RpcError: -32002 for an unknown URI; -32603 when the resource's function failed.
        """
        contents: list[dict[str, Any]] = (await self.request("resources/read", {"uri": uri}))["contents"]
        return contents

    async def list_prompts(self) -> list[dict[str, Any]]:
        """``prompts/list``: the prompts (every page), each ``{name, description?, arguments?}``."""
        return await self._all_pages("prompts/list", "prompts")

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        """``prompts/get``: the ``GetPromptResult`` (``{description?, messages: [{role, content}]}``).

        Raises:
            RpcError: -32602 for an unknown prompt or missing or invalid arguments.
        """
        return await self.request("prompts/get", {"name": name, "arguments": arguments or {}})

    async def _all_pages(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = await self.request(method, params)
            items.extend(page.get(key, []))
            if not page.get("nextCursor"):
                return items
            params = {"cursor": page["nextCursor"]}

    # -- messages from the server ----------------------------------------------------------
    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        """The ``params`` of the notifications received so far, in order: all of them, or those of
        ``method`` (``"notifications/progress"``: ``{progressToken, progress, total?, message?}``;
        ``"notifications/message"``: ``{level, logger, data}``)."""
        return [message.get("params") or {} for message in self.messages
                if "id" not in message and (method is None or message.get("method") == method)]

    def _receive(self, message: dict[str, Any]) -> None:
        message = jsondec.loads(jsonenc.dumpb_sent(message))  # as a wire client reads it
        self.messages.append(message)
        if "method" in message and "id" in message:  # the server's request: answered as a task of its own
            self._track(asyncio.ensure_future(self._respond(message)))

    async def _respond(self, message: dict[str, Any]) -> None:
        await self.send(await response(self.handlers, message))
