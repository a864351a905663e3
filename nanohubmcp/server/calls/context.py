"""``Context``: what a tool, resource or prompt function can do while it runs.

A function receives a Context in a parameter named ``ctx`` or ``context``, or in any parameter
annotated ``Context``. Log messages and progress travel on the request's own stream, before
its result; server→client requests (elicitation, sampling, roots) are answered only through
the same session.

Sync functions run on worker threads: there every method blocks until done. In an
``async def`` function on the event loop, the methods that wait for the client (``elicit``,
``elicit_url``, ``sample``, ``list_roots``) return an awaitable instead — write
``await ctx.elicit(...)``. Logging and progress never block (what they return may be awaited, and
awaiting it does nothing: the official SDK's habit). The client requests are handed to
the call's :class:`nanohubmcp.server.asks.context_asks.ClientAsks`, its progress to
:mod:`.progress`, what it logs to a :class:`~.call_log.CallLog` (levels, the messages kept, the
notifications the client asked for); the Context sends what they give on the request's stream.

Source: MCP 2025-11-25, Server § Utilities § Logging, Basic § Utilities § Progress and
Cancellation, Client § Elicitation / Sampling / Roots.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..asks.context_asks import DEFAULT_CLIENT_TIMEOUT, ClientAsks, on_loop
from ..wire.request import RequestContext
from . import call_log
from .call_facts import CallFacts
from .call_log import LOGGED, CallLog, Logged
from .progress import checked_progress
from .progress import for_request as progress_of

if TYPE_CHECKING:
    from .call_seams import CallSeams


class Context(CallFacts):
    """Per-call handle for logging, progress, cancellation and client requests.

    What the call is (its ids, caller, ``_meta``, task metadata, cancellation flag) it reads from its
    request (:class:`~.call_facts.CallFacts`).

    What it keeps of the server is the call's own seams (:class:`~.call_seams.CallSeams`: its asks, its
    progress, how results are shaped, the server's name), never the server's core. It is no sandbox: a function is
    the server author's own code, and :attr:`server` is the application's ``MCPServer``, with all it reaches.

    Attributes:
        request_id: the JSON-RPC id of the call.
        session_id: the session's id, or None (sessionless or 2026-07-28 requests).
        job_id: the job id when running as an ``@async_tool`` job, else None.
    """

    def __init__(self, seams: CallSeams, request: RequestContext, *, job_id: str | None = None) -> None:
        super().__init__(request, job_id=job_id, shaping=seams)
        self._seams = seams
        self._log = CallLog(seams.name)
        self._asks = ClientAsks(seams, request, in_job=job_id is not None)
        self._progress: float | None = None
        """The last progress this run reported (a middleware may run a call again: each run may count from 0)."""

    def get_log_messages(self) -> list[dict[str, Any]]:
        """The messages this call logged (newest last, at most the last 1,000): ``{"level", "message",
        "data"?}`` each."""
        return self._log.messages()

    # -- plumbing ---------------------------------------------------------------------------
    def _on_loop_thread(self, fn: Callable[..., object], *args: Any) -> None:
        """``fn(*args)`` now when called on the request's loop, else soon there (from a worker thread)."""
        if on_loop(self._request):
            fn(*args)
        else:
            self._request.loop.call_soon_threadsafe(fn, *args)

    # -- logging ----------------------------------------------------------------------------
    def log(self, level: str, message: str, *, logger: str | None = None, **data: Any) -> Logged:
        """Send ``notifications/message`` at ``level`` if the client asked for that level. A plain call: it
        returns :data:`~.call_log.LOGGED`, which ``await`` takes and does nothing with (``await ctx.log(...)``,
        the official SDK's habit, works too).

        Args:
            level: one of debug, info, notice, warning, error, critical, alert, emergency.
            message: the text; extra keyword ``data`` is sent beside it, as JSON: numpy and pandas
                values as in a tool's result, and any value JSON has no form for (a set, a ``Path``, an
                object; inside dicts and lists too) as its ``str()``, as is a dict or list that would nest
                past the 128 levels a tool's result is held to — the message is sent, never refused
                (:func:`~.call_log.sendable`). ``ctx.get_log_messages()`` keeps ``data`` as given.
        Raises:
            ValueError: unknown level.

        Example:
            ``ctx.log("info", "fitted", params={"a", "b"})`` sends
            ``{"message": "fitted", "params": "{'a', 'b'}"}`` (a set's order is Python's).

        .. versionchanged:: 1.0
           A value JSON has no form for is sent as its text; the notification failed in the transport
           with a traceback and was lost.
        """
        notification = self._log.add(level, message, logger, data, self._request.log_level)  # (:mod:`.call_log`)
        if notification is not None:
            self._on_loop_thread(self._request.send_related, notification)
        return LOGGED

    debug = call_log.debug
    info = call_log.info
    warning = call_log.warning
    error = call_log.error

    # -- progress ---------------------------------------------------------------------------
    def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> Logged:
        """Send ``notifications/progress`` when the client gave a progress token and its request is
        still in progress, not cancelled by its client (and, in a job, record it in the job store, where
        ``get_job_result``, ``%mcp jobs`` and the lab panel read it). An ``@async_tool`` call answered with its job
        handle sends none from then on; a 2025-11-25 task's token stays valid until the task ends.

        Observers of the server (a notebook's defining cell, the JupyterLab panel) are told too,
        token or not. A value not above the last one sent is dropped: the progress value must
        increase with each notification (MCP 2025-11-25, Basic § Utilities § Progress). A run a
        middleware starts again (``call_next`` awaited twice) has a ``ctx`` of its own and may
        count from 0 again without error; its reports are not sent (the call's progress ended
        with the first run's result).

        Args:
            progress: amount done so far (a finite number); must not decrease between calls.
            total: the amount at completion (a finite number), if known.
            message: a short status line (sent from 2025-03-26 on).
        Returns:
            :data:`~.call_log.LOGGED`, as the log methods do: a plain call, whose result ``await`` takes and does
            nothing with (``await ctx.report_progress(...)``, the official SDK's habit, works too).
        Raises:
            ValueError: ``progress`` is less than the last value this call reported, or ``progress`` or
                ``total`` is NaN or infinite (JSON has no such number: it would go out as
                ``null``, which clients refuse).
            TypeError: ``progress`` or ``total`` is no number (a bool, which would go out as ``true``, a string), or
                ``message`` is neither a ``str`` nor None.

        .. versionchanged:: 1.0
           Returns an awaitable that does nothing (it returned None: ``await ctx.report_progress(...)`` failed the
           call with "object NoneType can't be used in 'await' expression"). A report after the client cancelled
           the call is not sent to the client (observers and a job's record still get it). A bool or another
           value that is no number is a ``TypeError`` (``True`` was sent as ``true``, a string failed unexplained).
        """
        self._progress = checked_progress(progress, total, self._progress, message)
        progress_of(self._seams, self._request).report(progress, total, message)
        return LOGGED

    # -- asking the client (see nanohubmcp.server.asks.context_asks) ----------------------------
    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The capabilities the client declared (at ``initialize``, or in this 2026-07-28 request)."""
        return self._asks.client_capabilities

    @property
    def client_shows_views(self) -> bool:
        """True when the client declared MCP Apps with HTML views (``io.modelcontextprotocol/ui``).

        A tool with a view (``@server.tool(view=...)``) may then keep its text short: the view
        shows the data. Source: SEP-1865 "MCP Apps", Client capabilities.
        """
        return self._asks.client_shows_views

    def elicit(
        self,
        message: str,
        requested_schema: dict[str, Any] | None = None,
        timeout: float | None = DEFAULT_CLIENT_TIMEOUT,
        *,
        key: str | None = None,
    ) -> Any:
        """Ask the user for input through the client (form mode).

        Args:
            message: what to ask.
            requested_schema: a flat object schema of string/number/integer/boolean/enum
                properties; default: one string property ``value``.
            timeout: seconds to wait (default 60); None, ``inf`` or a number past any wait (``1e308``) wait
                for as long as the user takes. A sync tool holds its worker thread while it
                waits, so a question left unanswered keeps that worker up to ``timeout``; an
                ``async def`` tool (``await ctx.elicit(...)``) waits on the event loop and holds none.
            key: the input request's key in 2026-07-28 calls (default ``elicitation_1``, ...).
        Returns:
            The client's result ``{"action": "accept"|"decline"|"cancel", "content"?: {...}}``.
        Raises:
            ClientRequestError: the client lacks the ``elicitation`` capability, answered
                with an error, answered with no valid ``action`` ("the client's answer to
                elicitation/create has no "action" (accept, decline or cancel)"), accepted with
                ``content`` that is not an object of strings, numbers, booleans and lists of
                strings, or accepted with content that breaks ``requested_schema`` (MCP 2025-11-25,
                Client § Elicitation: the content must match the requested schema);
                ClientRequestTimeout after ``timeout``. So the answer returned always has a valid
                ``action``, and with ``accept`` valid ``content``. ``content`` sent with ``decline``
                or ``cancel`` is not refused (the spec has it "typically omitted" there) and is
                returned as sent: it means nothing, so read ``action`` first. In a 2026-07-28
                call a missing capability is the call's error -32021, an answer of the wrong shape
                in the retried request's ``inputResponses`` is its error -32602 with the same text,
                and an unanswered request ends the call with ``input_required`` (the client retries
                with the answer).
            ToolError: the request would be over the server's ``max_event_bytes`` (default 1 MiB) as one SSE
                event (a ``message`` or schema of more than some 1,040,000 bytes as JSON by default:
                :func:`~nanohubmcp.server.asks.ask_size.ask_bytes`), which the official client cannot read:
                nothing is sent, the text names the limit and what to shorten.

        .. versionchanged:: 1.0.0.dev0
           An answer without a valid ``action`` (or accepted with ``content`` of another shape) is a
           ``ClientRequestError``; it reached the tool unchecked. A ``timeout`` that is no time limit (0, a
           negative number, NaN, a bool, a string) raises ``ValueError`` at the call, in every tool, as in
           :func:`~nanohubmcp.protocol.seconds.limit_seconds`; ``None``, ``inf`` and one past any wait
           (``1e308``, ``10**400``) are no limit in a sync tool too.
        """
        return self._asks.elicit(message, requested_schema, timeout, key)

    def elicit_url(
        self,
        message: str,
        url: str,
        elicitation_id: str | None = None,
        timeout: float | None = DEFAULT_CLIENT_TIMEOUT,
        *,
        key: str | None = None,
    ) -> Any:
        """Ask the user to complete a step at ``url`` (URL-mode elicitation, MCP 2025-11-25).

        The client shows ``message`` and opens ``url`` (a login, a payment) outside the MCP
        connection; what the user enters there never passes through the client.

        Args:
            message: why the user should open ``url``.
            url: the page to open (``https://...``).
            elicitation_id: the id the client may be told is complete later (default: an
                unguessable one, 16 random bytes URL-safe encoded).
            timeout: seconds to wait for the client's answer (default 60; as in :meth:`elicit`: None or
                ``inf``, no limit).
            key: the input request's key in 2026-07-28 calls (default ``elicitation_1``, ...).
        Returns:
            The client's result ``{"action": "accept"|"decline"|"cancel"}`` (accept: the user
            agreed to open the URL, not that the step there is done).
        Raises:
            ClientRequestError: the client did not declare ``elicitation.url``, answered with an
                error, with no valid ``action``, or accepted with ``content`` (a URL-mode answer has
                none; with ``decline`` or ``cancel`` it is not refused, as in :meth:`elicit`);
                ClientRequestTimeout after ``timeout``. In a 2026-07-28 call as :meth:`elicit`.

        Source: MCP 2025-11-25, Client § Elicitation § URL mode.
        """
        return self._asks.elicit_url(message, url, elicitation_id, timeout, key)

    def sample(
        self, params: dict[str, Any] | str, timeout: float | None = DEFAULT_CLIENT_TIMEOUT, *, key: str | None = None
    ) -> Any:
        """Ask the client's LLM for a completion (``sampling/createMessage``).

        Args:
            params: the request params (``messages``, ``maxTokens``, ...), or a plain prompt string.
        Returns:
            The client's result ``{"role": "assistant"|"user", "content": block or [blocks],
            "model": str, "stopReason"?: str}``, each block of the spec's shape for its ``type``
            (``text``, ``image``, ``audio``, ``tool_use``, ``tool_result``).
        Raises:
            ClientRequestError: the client lacks the ``sampling`` capability, answered with an
                error, or with a result not of that shape ("the client's answer to
                sampling/createMessage has no "model" ..."); ClientRequestTimeout after
                ``timeout``. In a 2026-07-28 call as :meth:`elicit`.
            ToolError: ``params`` over 1 MiB as one SSE event, as in :meth:`elicit` (shorten the messages).
        """
        return self._asks.sample(params, timeout, key)

    def list_roots(self, timeout: float | None = DEFAULT_CLIENT_TIMEOUT, *, key: str | None = None) -> Any:
        """Ask the client for its roots (``roots/list``): the directories or files it lets the server work in.

        Args:
            timeout: seconds to wait for the client's answer (default 60; as in :meth:`elicit`: None or
                ``inf``, no limit).
            key: the input request's key in 2026-07-28 calls (default ``roots_1``, ...).
        Returns:
            ``{"roots": [{"uri": "file:///...", "name"?: str}, ...]}``.
        Raises:
            ClientRequestError: the client lacks the ``roots`` capability, answered with an
                error, or with a result not of that shape (no ``roots`` list, a root without a
                ``file://`` ``uri`` string, a ``name`` that is not a string);
                ClientRequestTimeout after ``timeout``. In a 2026-07-28 call as :meth:`elicit`.

        Source: MCP 2025-11-25, Client § Roots.
        """
        return self._asks.input("roots/list", None, timeout, key)

    def ask(self, requests: dict[str, dict[str, Any]], timeout: float | None = DEFAULT_CLIENT_TIMEOUT) -> Any:
        """Ask the client several things at once; returns ``{key: result}``.

        Args:
            requests: ``{key: {"method": "elicitation/create" | "sampling/createMessage" |
                "roots/list", "params": {...}}}``. In a 2026-07-28 call they travel together
                in one ``input_required`` result under these keys; in the handshake era they
                are sent concurrently.
        Raises:
            ValueError: a malformed entry. Otherwise as :meth:`elicit`.
        """
        return self._asks.ask(requests, timeout)

    def start_task(self, message: str | None = None) -> bool:
        """Go on as a task: the client gets a task handle now and polls for the result.

        Only in a 2026-07-28 ``tools/call`` of a tool with ``task_support`` "optional" or
        "required" whose client declared the ``io.modelcontextprotocol/tasks`` extension;
        elsewhere it does nothing and the call answers as usual. Call it after gathering input
        (multi round-trip): later ``ctx.elicit`` calls wait for ``tasks/update`` instead.

        Args:
            message: the task's first ``statusMessage``.
        Returns:
            True when the call is (now) a task.
        """
        return self._asks.start_task(message)

    # -- cancellation -----------------------------------------------------------------------
    def is_cancelled(self) -> bool:
        """True once the client cancelled this request (or its session ended)."""
        return self._request.cancelled.look()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the request is cancelled (on the event loop thread)."""
        flag = self._request.cancelled

        def told() -> None:
            flag.seen = True  # the function heard of the cancel: what it returns may be cut short
            callback()

        self._on_loop_thread(self._request.on_cancel, told)

    def close_stream(self) -> None:
        """End this call's SSE response now; the client reconnects and gets the rest.

        The server keeps the call's messages and result; a client resuming with
        ``Last-Event-ID`` (a GET, after the ``retry`` delay sent in the priming event)
        receives them. Does nothing when the stream cannot be resumed (JSON replies,
        sessionless calls, protocol versions before 2025-03-26).

        Source: MCP 2025-11-25, Transports § Streamable HTTP § Resumability (SEP-1699).
        """
        self._on_loop_thread(self._hang_up)

    def _hang_up(self) -> None:
        stream = self._request.stream  # on the loop: a deferred stream is made there (SSE, primed)
        if stream is not None:
            stream.hangup()


