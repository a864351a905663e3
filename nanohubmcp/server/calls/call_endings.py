"""How a call of a user function ends when it is not answered with what the function did: its client cancelled it
(``notifications/cancelled``, a 2026-07-28 POST or stdio's input closed), or the stopping server cut it short.

One ending for the three methods that call a function of the server's author — ``tools/call`` (:mod:`.tool_calls`),
``resources/read`` and ``prompts/get`` (:mod:`..handlers.resources`, :mod:`..handlers.prompts`): the call is recorded
``cancelled`` and marked :data:`~..wire.request.CLIENT_CANCELLED`, so the connection seam sends no response (MCP
2025-11-25, Basic § Utilities § Cancellation: the receiver SHOULD NOT respond to a cancelled request). What cancels an
``async def`` function's coroutine at its client's cancel is :func:`.invoke.cancelled_with_its_client`; a sync
function keeps its worker thread to its end (nothing can stop a thread; a function given a ``Context`` reads the
cancel as ``ctx.is_cancelled()``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NoReturn

from ...errors import RequestCancelled, ServerStopping
from ..wire.request import CLIENT_CANCELLED, RequestContext

if TYPE_CHECKING:
    from .invoke import CallRecord

log = logging.getLogger("nanohubmcp.tool")


def client_cancelled(request: RequestContext) -> bool:
    """Whether ``request``'s client cancelled it: withdrawn (``notifications/cancelled``, its POST closed), or its
    coroutine cancelled for its client (:data:`~..wire.request.CLIENT_CANCELLED`: stdio's input closed too)."""
    return request.withdrawn or bool(request.slots.get(CLIENT_CANCELLED))


def cancelled_by_client(request: RequestContext, record: CallRecord | None) -> RequestCancelled:
    """A call its client cancelled, whatever its function did next (returned, raised, was cancelled): marked
    :data:`~..wire.request.CLIENT_CANCELLED` (no answer is sent), its record ``cancelled``; the error saying so,
    for the handler to end with (it is never sent)."""
    request.slots[CLIENT_CANCELLED] = True
    if record:
        record.finish(False, "cancelled")
    return RequestCancelled(f"Request cancelled: {request.cancel_reason or 'cancelled by the client'}")


def stopped(name: str, request: RequestContext, ended: str, record: CallRecord | None) -> NoReturn:
    """A call the stopping server cancelled ended in an error (``ended``: how): it did not complete,
    whichever way it ended (a program killed at the cancel, a tool raising once told, an error result).
    Its answer is the stopping server's, as for a call still running when the grace ran out
    (:data:`~nanohubmcp.server.shutdown.STOPPED`).

    Raises:
        ServerStopping: always (-32000, retryable; REST 503 with ``Retry-After``).
    """
    log.info("tool %r (request id %s) was stopped with the server (%s); answered that the server is stopping",
             name, request.message.id, ended)
    if record:
        record.finish(False, "the server stopped")
    raise ServerStopping() from None
