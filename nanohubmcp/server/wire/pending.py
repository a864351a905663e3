"""Server→client requests of the handshake era: elicitation, sampling, roots.

The request goes out on the stream of the tool call that asked (so it arrives before that call's
result), or, when that call has none (a task, once its ``tools/call`` was answered), on the session's
GET stream: read in this process, or, with a shared state store, by whichever process holds it (none
does: the request is refused at once). The answer is accepted only from the same session: the
pending map lives on the session, so a response POSTed under another session never finds it (no
session can answer, or steal, another's requests).

Source: MCP 2025-11-25, Client § Elicitation, Sampling, Roots; Transports § Streamable HTTP
(sending messages to the client).
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ClientRequestError, ClientRequestTimeout
from ...protocol import jsonrpc
from .request import ASKED_WITHOUT_CLIENT, RequestContext

if TYPE_CHECKING:
    from .replication import Replication

_CAPABILITY = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class ClientRequests:
    """Sends server→client requests and matches the answers (one per server).

    Args:
        replication: the server's session replication when a shared state store is in use (an
            answer may then reach another process), else None; read at each request.
    """

    def __init__(self, replication: Callable[[], Replication | None] = lambda: None) -> None:
        self._replication = replication
        self._prefix = f"srv-{secrets.token_hex(4)}-"
        self._counter = itertools.count(1)

    @staticmethod
    def _check_capability(request: RequestContext, method: str, params: dict[str, Any] | None) -> None:
        caps = request.client_capabilities or {}
        name = _CAPABILITY[method]
        if name not in caps:
            raise ClientRequestError(
                f"the client did not declare the '{name}' capability, so {method} cannot be sent")
        if method == "elicitation/create" and params and params.get("mode") == "url":
            elicitation = caps.get("elicitation") or {}
            if "url" not in elicitation:
                raise ClientRequestError("the client did not declare URL-mode elicitation (elicitation.url)")

    async def ask(self, request: RequestContext, method: str, params: dict[str, Any] | None,
                  timeout: float | None) -> Any:
        """Send ``method`` to the client and wait for its result.

        Raises:
            ClientRequestError: no session (a sessionless request has no way back), missing
                capability, no stream to carry it, the client answered with an error (or with an
                ``error`` member that is not a JSON-RPC error object), or its result is not of the
                method's shape (``protocol.client_answers``: an elicitation
                answer without a valid ``action``, say).
            ClientRequestTimeout: no answer within ``timeout`` seconds.
        """
        session = request.session
        if session is None:
            if request.transport == "direct":  # server.call(): nobody on the other end to ask
                raise ClientRequestError(
                    f"server.call has no client to answer {method}: call this tool from an MCP client, or test "
                    "it with nanohubmcp.testing.in_memory(server, elicitation=..., sampling=...), a client "
                    "that answers with your handlers")
            if request.transport == "rest":  # a plain HTTP caller: no session, no stream to ask on
                request.slots[ASKED_WITHOUT_CLIENT] = True
                raise ClientRequestError(
                    f"this tool asks the client ({method}), which a REST call cannot answer: call it over MCP "
                    "(the /mcp endpoint) from a client that supports it")
            raise ClientRequestError(
                f"{method} needs a session: initialize first and send the Mcp-Session-Id header")
        self._check_capability(request, method, params)
        request_id = f"{self._prefix}{next(self._counter)}"
        future: asyncio.Future[Any] = request.loop.create_future()
        session.pending[request_id] = future
        replication = self._replication()
        try:
            if replication is not None:
                await replication.expect(session, request_id, timeout)  # the answer may reach another process
                # No stream here: only the GET stream another process may hold can carry it. Nobody reads
                # it: refused now, not after the timeout.
                carried = not request.through_store or await replication.read_elsewhere(session)
            else:
                carried = True
            if not carried or not request.send_related(jsonrpc.request(request_id, method, params)):
                raise ClientRequestError(
                    f"no stream can carry {method}: send the call with 'Accept: text/event-stream' "
                    "or open the GET stream first")
            try:
                reply = await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise ClientRequestTimeout(f"the client did not answer {method} within {timeout:g} s") from None
            except asyncio.CancelledError:
                # look(): the function hears of the cancel through this error: it saw it (CancelFlag.seen)
                if request.cancelled.look() or session.closed:
                    raise ClientRequestError(f"{method} was abandoned: the request was cancelled") from None
                raise
        finally:
            session.pending.pop(request_id, None)
            if replication is not None:
                replication.forget(session, request_id)
        # The shapes of the client's answers: loaded with the first answer (a first answer to initialize asks none)
        from ...protocol.client_answers import answer_problem, error_problem

        if "error" in reply:
            problem = error_problem(method, reply)  # a malformed error is named, not read as a refusal
            raise ClientRequestError(problem or f"the client refused {method}: {reply['error']['message']}")
        result = reply.get("result")
        # Every transport's answer (and one another process took, with Redis) arrives here: the one
        # place it is held to the spec's result shape before the function that asked reads it.
        problem = answer_problem(method, result, params)
        if problem is not None:
            raise ClientRequestError(problem)
        return result

    @staticmethod
    def resolve(request: RequestContext, message: jsonrpc.Message) -> bool:
        """Deliver a client's response to the pending request of the same session."""
        session = request.session
        if session is None:
            return False
        future = session.pending.get(message.id)  # type: ignore[arg-type]
        if future is None or future.done():
            return False
        future.set_result(message.raw)
        return True
