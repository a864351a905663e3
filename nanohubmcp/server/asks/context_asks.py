"""What a running function asks its client through ``Context``: elicitation, sampling, roots, tasks.

:class:`ClientAsks` is the collaborator a :class:`nanohubmcp.server.calls.context.Context` holds for
them (the Context keeps identity, logging, progress and cancellation, and documents each
request). Requests travel on the caller's session: in the
handshake era as server→client requests (``core.client_requests``); in a 2026-07-28 call as
input requests of a multi round-trip result, or of a task (``nanohubmcp.server.asks.by_era``).
From a worker thread each method blocks until the answer; on the event loop it returns an
awaitable.

Source: MCP 2025-11-25, Client § Elicitation / Sampling / Roots.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ...protocol.seconds import MOST_WAIT_SECONDS, limit_seconds
from ..registry import mcp_apps as apps
from ..wire.request import Slot
from .answer_check import AnswerCheck
from .ask_size import refuse_oversized

if TYPE_CHECKING:
    from ..wire.request import RequestContext
    from .hosts import Asking


DEFAULT_CLIENT_TIMEOUT = 60.0
"""Seconds to wait for a client's answer to elicitation, sampling or roots."""


def on_loop(request: RequestContext) -> bool:
    """True when the caller runs on the event loop serving ``request``."""
    try:
        return asyncio.get_running_loop() is request.loop
    except RuntimeError:
        return False


ASKED_CLIENT: Slot[bool] = Slot("asked the client")
"""True once the call asked its client something (elicitation, sampling, roots): its result then
depends on the answers, not only on its arguments (the result cache does not keep it)."""

class ClientAsks:
    """What one call asks its client: it builds each request and waits for the answer.

    From a worker thread each method blocks until the answer; on the event loop it returns an
    awaitable (see ``Context``, which documents each request).

    Args:
        core: what the asks read of the server (its pending client requests, the 2026-07-28 input requests).
        request: the call's request context (its session, version, loop and capabilities).
        in_job: True when the call runs as an ``@async_tool`` job (a task's input request then).
    """

    def __init__(self, core: Asking, request: RequestContext, *, in_job: bool) -> None:
        self._core = core
        self._request = request
        self._in_job = in_job

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The capabilities the client declared (at ``initialize``, or in this 2026-07-28 request)."""
        return self._request.client_capabilities or {}

    @property
    def client_shows_views(self) -> bool:
        """True when the client declared MCP Apps with HTML views (SEP-1865)."""
        return apps.client_shows_views(self.client_capabilities)

    def _wait(self, coro: Coroutine[Any, Any, Any], timeout: float | None) -> Any:
        if on_loop(self._request):
            return coro
        if threading.current_thread() is threading.main_thread() and not self._request.loop.is_running():
            coro.close()
            raise RuntimeError("the server is not running")
        future = asyncio.run_coroutine_threadsafe(coro, self._request.loop)
        # (the ask ends itself at its timeout; these 5 s more only guard a loop that stopped answering)
        return future.result(None if timeout is None or timeout + 5 > MOST_WAIT_SECONDS else timeout + 5)

    def input(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        key: str | None,
        check: AnswerCheck | None = None,
    ) -> Any:
        """Send ``method`` to the client (or, in a 2026-07-28 call, ask for it as input ``key``);
        ``check`` (prepared on a worker thread while the client answers) then holds the answer to
        what was asked.

        Raises:
            ValueError: ``timeout`` is no time limit (:func:`~nanohubmcp.protocol.seconds.limit_seconds`: a
                positive number of seconds, or None / ``inf`` / one past any wait for no limit), alike in a
                sync and an ``async def`` tool, before anything is sent.
            ToolError: ``params`` are over :func:`~.ask_size.ask_bytes` as JSON (one SSE event's bound: the
                server's ``max_event_bytes``, 1 MiB by default), before anything is sent
                (:func:`~.ask_size.refuse_oversized`).
        """
        seconds = limit_seconds(timeout, "timeout")
        refuse_oversized({None: {"method": method, "params": params}},
                         bound=self._core.result_options.max_event_bytes)
        self._request.put(ASKED_CLIENT, True)
        from .by_era import ask_one  # server→client (a task's: input_required meanwhile), or 2026-07-28's input

        asking = ask_one(self._core, self._request, method, params, key, seconds, in_job=self._in_job)
        return self._wait(asking if check is None else _then(asking, check), seconds)

    def elicit(self, message: str, requested_schema: dict[str, Any] | None, timeout: float | None,
               key: str | None) -> Any:
        """``elicitation/create`` in form mode; the accepted content is checked against the schema."""
        schema = requested_schema or {"type": "object", "properties": {"value": {"type": "string"}}}
        params: dict[str, Any] = {"message": message, "requestedSchema": schema}
        if self._request.version.elicitation_modes:
            params = {"mode": "form", **params}
        return self.input("elicitation/create", params, timeout, key, AnswerCheck(schema))

    def elicit_url(self, message: str, url: str, elicitation_id: str | None, timeout: float | None,
                   key: str | None) -> Any:
        """``elicitation/create`` in URL mode (an unguessable id unless one is given)."""
        import secrets

        params = {
            "mode": "url",
            "message": message,
            "url": url,
            "elicitationId": elicitation_id or secrets.token_urlsafe(16),
        }
        return self.input("elicitation/create", params, timeout, key)

    def sample(self, params: dict[str, Any] | str, timeout: float | None, key: str | None) -> Any:
        """``sampling/createMessage``; a string becomes one user message (512 tokens at most)."""
        if isinstance(params, str):
            params = {"messages": [{"role": "user", "content": {"type": "text", "text": params}}], "maxTokens": 512}
        return self.input("sampling/createMessage", params, timeout, key)

    def ask(self, requests: dict[str, dict[str, Any]], timeout: float | None) -> Any:
        """Several requests at once; ``{key: result}`` (``timeout`` as :meth:`input` reads it)."""
        seconds = limit_seconds(timeout, "timeout")
        from .by_era import ask_many, normalize

        refuse_oversized(normalize(requests), together=self._request.modern,
                         bound=self._core.result_options.max_event_bytes)
        self._request.put(ASKED_CLIENT, True)

        asking = ask_many(self._core, self._request, requests, seconds, in_job=self._in_job)
        return self._wait(asking, seconds)

    def start_task(self, message: str | None) -> bool:
        """Go on as a task when the call may (see ``Context.start_task``)."""
        if on_loop(self._request):
            return self._request.go_on_as_task(message)
        call = _call(self._request.go_on_as_task, message)
        future = asyncio.run_coroutine_threadsafe(call, self._request.loop)
        return bool(future.result(DEFAULT_CLIENT_TIMEOUT))


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


async def _then(asking: Coroutine[Any, Any, Any], check: AnswerCheck) -> Any:
    """``asking``'s answer, held to ``check``: its validator is prepared on a worker thread from
    the moment the request is sent (the client's answer takes a while), then applied here."""
    prepared = asyncio.ensure_future(asyncio.to_thread(check.prepare))
    try:
        answer = await asking
    except BaseException:
        # Asking failed or must wait (a 2026 round trip): not needed. Cancelled, not left pending: the
        # thread still runs (a first validator takes seconds), and a loop closed meanwhile (the server
        # stopped) would log "Task was destroyed but it is pending!" for it.
        prepared.cancel()
        prepared.add_done_callback(_ignored)
        raise
    return check.checked(answer, await prepared)


def _ignored(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: never "exception was never retrieved"
