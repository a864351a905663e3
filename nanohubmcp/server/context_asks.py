"""What a running function asks its client through ``Context``: elicitation, sampling, roots, tasks.

:class:`ContextAsks` is a base class of :class:`nanohubmcp.server.context.Context` (which keeps
identity, logging, progress and cancellation). Requests travel on the caller's session: in the
handshake era as server→client requests (``core.client_requests``); in a 2026-07-28 call as
input requests of a multi round-trip result, or of a task (``nanohubmcp.server.modern.asks``).
From a worker thread each method blocks until the answer; on the event loop it returns an
awaitable.

Source: MCP 2025-11-25, Client § Elicitation / Sampling / Roots.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ..errors import ClientRequestError, RegistrationError
from ..schema import OutputValidator
from . import apps

if TYPE_CHECKING:
    from .core import ServerCore
    from .request import RequestContext

DEFAULT_CLIENT_TIMEOUT = 60.0
"""Seconds to wait for a client's answer to elicitation, sampling or roots."""


class ContextAsks:
    """Server→client requests of one call (state set by ``Context``)."""

    _core: ServerCore
    _request: RequestContext

    if TYPE_CHECKING:

        @property
        def job_id(self) -> str | None: ...

        def _on_loop(self) -> bool: ...

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The capabilities the client declared (at ``initialize``, or in this 2026-07-28 request)."""
        return self._request.client_capabilities or {}

    @property
    def client_shows_views(self) -> bool:
        """True when the client declared MCP Apps with HTML views (``io.modelcontextprotocol/ui``).

        A tool with a view (``@server.tool(view=...)``) may then keep its text short: the view
        shows the data. Source: SEP-1865 "MCP Apps", Client capabilities.
        """
        return apps.client_shows_views(self.client_capabilities)

    def _ask(self, coro: Coroutine[Any, Any, Any], timeout: float) -> Any:
        if self._on_loop():
            return coro
        if threading.current_thread() is threading.main_thread() and not self._request.loop.is_running():
            coro.close()
            raise RuntimeError("the server is not running")
        future = asyncio.run_coroutine_threadsafe(coro, self._request.loop)
        return future.result(timeout + 5)

    def _input(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float,
        key: str | None,
        check: Callable[[Any], Any] | None = None,
    ) -> Any:
        if not self._request.modern:
            asking = self._core.client_requests.ask(self._request, method, params, timeout)
        else:
            from .modern.asks import ask_one  # 2026-07-28: multi round-trip, or a task's input request

            asking = ask_one(self._core, self._request, method, params, key, timeout, in_job=self.job_id is not None)
        return self._ask(asking if check is None else _then(asking, check), timeout)

    def elicit(
        self,
        message: str,
        requested_schema: dict[str, Any] | None = None,
        timeout: float = DEFAULT_CLIENT_TIMEOUT,
        *,
        key: str | None = None,
    ) -> Any:
        """Ask the user for input through the client (form mode).

        Args:
            message: what to ask.
            requested_schema: a flat object schema of string/number/integer/boolean/enum
                properties; default: one string property ``value``.
            timeout: seconds to wait.
            key: the input request's key in 2026-07-28 calls (default ``elicitation_1``, ...).
        Returns:
            The client's result ``{"action": "accept"|"decline"|"cancel", "content"?: {...}}``.
        Raises:
            ClientRequestError: the client lacks the ``elicitation`` capability, answered
                with an error, or accepted with content that breaks ``requested_schema`` (MCP
                2025-11-25, Client § Elicitation: the content must match the requested schema);
                ClientRequestTimeout after ``timeout``. In a 2026-07-28 call a
                missing capability is the call's error -32021, and an unanswered request ends
                the call with ``input_required`` (the client retries with the answer).
        """
        schema = requested_schema or {"type": "object", "properties": {"value": {"type": "string"}}}
        params: dict[str, Any] = {"message": message, "requestedSchema": schema}
        if self._request.version >= "2025-11-25":
            params = {"mode": "form", **params}
        return self._input("elicitation/create", params, timeout, key, lambda answer: checked_answer(answer, schema))

    def elicit_url(
        self,
        message: str,
        url: str,
        elicitation_id: str | None = None,
        timeout: float = DEFAULT_CLIENT_TIMEOUT,
        *,
        key: str | None = None,
    ) -> Any:
        """Ask the user to complete a step at ``url`` (URL-mode elicitation, MCP 2025-11-25).

        Returns:
            The client's result ``{"action": ...}``.
        Raises:
            ClientRequestError: the client did not declare ``elicitation.url``.
        """
        import secrets

        params = {
            "mode": "url",
            "message": message,
            "url": url,
            "elicitationId": elicitation_id or secrets.token_urlsafe(16),
        }
        return self._input("elicitation/create", params, timeout, key)

    def sample(
        self, params: dict[str, Any] | str, timeout: float = DEFAULT_CLIENT_TIMEOUT, *, key: str | None = None
    ) -> Any:
        """Ask the client's LLM for a completion (``sampling/createMessage``).

        Args:
            params: the request params (``messages``, ``maxTokens``, ...), or a plain prompt string.
        Returns:
            The client's result ``{"role", "content", "model", "stopReason"?}``.
        """
        if isinstance(params, str):
            params = {"messages": [{"role": "user", "content": {"type": "text", "text": params}}], "maxTokens": 512}
        return self._input("sampling/createMessage", params, timeout, key)

    def list_roots(self, timeout: float = DEFAULT_CLIENT_TIMEOUT, *, key: str | None = None) -> Any:
        """Ask the client for its roots (``roots/list``); returns ``{"roots": [...]}``."""
        return self._input("roots/list", None, timeout, key)

    def ask(self, requests: dict[str, dict[str, Any]], timeout: float = DEFAULT_CLIENT_TIMEOUT) -> Any:
        """Ask the client several things at once; returns ``{key: result}``.

        Args:
            requests: ``{key: {"method": "elicitation/create" | "sampling/createMessage" |
                "roots/list", "params": {...}}}``. In a 2026-07-28 call they travel together
                in one ``input_required`` result under these keys; in the handshake era they
                are sent concurrently.
        Raises:
            ValueError: a malformed entry. Otherwise as :meth:`elicit`.
        """
        from .modern.asks import ask_many

        asking = ask_many(self._core, self._request, requests, timeout, in_job=self.job_id is not None)
        return self._ask(asking, timeout)

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
        if self._on_loop():
            return self._request.go_on_as_task(message)
        call = _call(self._request.go_on_as_task, message)
        future = asyncio.run_coroutine_threadsafe(call, self._request.loop)
        return bool(future.result(DEFAULT_CLIENT_TIMEOUT))


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def checked_answer(answer: Any, schema: dict[str, Any]) -> Any:
    """The client's elicitation result, once its accepted ``content`` matches ``schema``.

    Raises:
        ClientRequestError: the content breaks the schema (one line per violation), so the
            tool never takes a wrong answer for a valid one.
    """
    if not isinstance(answer, dict) or answer.get("action") != "accept":
        return answer
    try:
        validator = OutputValidator(schema, name="elicitation", kind="requested schema of an")
    except RegistrationError:
        return answer  # a schema jsonschema cannot use: nothing to hold the answer to
    content = answer.get("content", {})
    problems = validator.errors(content, root="content")
    if problems:
        raise ClientRequestError("The client's answer does not match the requested schema: " + "; ".join(problems))
    return answer


async def _then(asking: Coroutine[Any, Any, Any], check: Callable[[Any], Any]) -> Any:
    return check(await asking)
