"""What a testing client answers to the server's requests (elicitation, sampling, roots).

:class:`~.client.MemoryClient` is given a :data:`Handler` per request method it answers;
:func:`handlers_of` makes that table from its arguments, :func:`implied_capabilities` the capabilities
it declares for them, and :func:`answer` / :func:`response` call a handler for one request.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import InternalError, MethodNotFound, to_error_object

__all__ = ["Handler", "answer", "handlers_of", "implied_capabilities", "response"]

Handler = Callable[[dict[str, Any]], "dict[str, Any] | Awaitable[dict[str, Any]]"]
"""Answers one request of the server: called with its ``params`` (a dict), returns its result
(a dict), or an awaitable of it. An exception it raises is the client's error answer."""

_IMPLIED = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


def handlers_of(elicitation: Handler | None, sampling: Handler | None,
                roots: list[dict[str, Any]] | None) -> dict[str, Handler]:
    """The server's request methods a client answers, with their handlers: those given (``roots``:
    the list ``roots/list`` answers)."""
    handlers: dict[str, Handler] = {}
    if elicitation is not None:
        handlers["elicitation/create"] = elicitation
    if sampling is not None:
        handlers["sampling/createMessage"] = sampling
    if roots is not None:
        listed = list(roots)
        handlers["roots/list"] = lambda params: {"roots": listed}
    return handlers


def implied_capabilities(handlers: dict[str, Handler]) -> dict[str, Any]:
    """The client capabilities ``handlers`` imply (``{"elicitation": {}, ...}``)."""
    return {_IMPLIED[method]: {} for method in handlers}


async def answer(handlers: dict[str, Handler], method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The result of ``method``'s handler for ``params`` (awaited when it returns an awaitable).

    Raises:
        KeyError: no handler for ``method``; whatever the handler raises.
    """
    result = handlers[method](params)
    if inspect.isawaitable(result):
        result = await result
    return result


async def response(handlers: dict[str, Handler], message: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC response to the server's request ``message``: the handler's result, or an error
    (``METHOD_NOT_FOUND`` without a handler, ``INTERNAL_ERROR`` naming the handler's exception)."""
    method = message["method"]
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method not in handlers:
        reply["error"] = to_error_object(MethodNotFound(f"this client has no handler for {method}"))
    else:
        try:
            reply["result"] = await answer(handlers, method, message.get("params") or {})
        except Exception as exc:  # the handler's failure is the client's error answer
            reply["error"] = to_error_object(InternalError(f"{type(exc).__name__}: {exc}"))
    return reply
