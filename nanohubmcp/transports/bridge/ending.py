"""How the bridge ends, as a stdio server does: its client closing its input (the client quit), or a stop signal.

At the end of input a request the client sent (any but ``initialize``: a ``tools/call``, a ``resources/read``, a
``prompts/get``, a ``tasks/result`` ...) gets :data:`~..lines.END_OF_INPUT_GRACE_SECONDS` from its sending to be
answered, the second a stdio server gives its running calls; still unanswered then, it is the client's cancel, sent
on to the server (:func:`cancels`: a ``notifications/cancelled``, or for a 2026-07-28 request its POST closed), as a
stdio server cancels what its client, gone, still runs; what is still on its way gets the rest of
:data:`DRAIN_SECONDS`. At a stop signal every request still unanswered is answered at once with the stopping
server's -32000 error (:func:`stopping_error`), its call cancelled on the server the same way; an answer the server
sends all the same is not relayed (:meth:`.pending.Unanswered.superseded`). Either way the session then ends
(:meth:`.session.Bridge.close`).

Not this module's: which signals stop the bridge (:func:`...processes.workers.stop_signals`, read by :mod:`.stdio`),
the requests awaited (:mod:`.pending`), sending a message (:mod:`.session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ...errors import ServerBusy, error_response
from ...errors.protocol import STOPPING_RETRY_SECONDS
from ..lines import END_OF_INPUT_GRACE_SECONDS

if TYPE_CHECKING:
    from .session import Bridge

__all__ = ["CANCEL_SECONDS", "DRAIN_SECONDS", "HANGUP_LINE", "INPUT_CLOSED", "cancels",
           "end_of_input", "send", "signal_name", "stopped", "stopping_error"]

DRAIN_SECONDS = 10.0
"""At end of input, how long requests already sent may take to be answered before the bridge exits."""
CANCEL_SECONDS = 5.0
"""The longest the bridge takes to send the server its cancels, at its end."""
INPUT_CLOSED = "the client closed the bridge's input"
"""The reason of the cancels sent at the end of input."""
HANGUP_LINE = ("stopping at SIGHUP (the terminal or session that started the bridge closed), as at SIGTERM; start "
               "it under nohup to keep it relaying")
"""What the bridge says on stderr when SIGHUP stops it."""


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15 (``signal 99`` for a number the platform does not name)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def stopping_error(request_id: object, signum: int) -> dict[str, object]:
    """The answer of a request the bridge stopped by ``signum`` did not see answered: -32000, as a stdio server's
    stop answers its running calls (:class:`~nanohubmcp.errors.ServerStopping`), naming the bridge."""
    refusal = ServerBusy(f"The bridge is stopping ({signal_name(signum)}): this request was not completed (it was "
                         "cancelled on the server); it may be retried once the bridge is started again",
                         retry_after=STOPPING_RETRY_SECONDS)
    return error_response(refusal, request_id)


def cancels(bridge: Bridge, named: list[Any], reason: str) -> list[Awaitable[Any]]:
    """Cancel on the server the client's requests ``named`` (ids of requests awaited; an ``initialize`` MUST NOT be
    cancelled and is left), as its ``notifications/cancelled`` would (MCP 2025-11-25, Utilities § Cancellation): an
    ``async def`` tool's coroutine is cancelled, a sync tool's ``ctx.is_cancelled()`` turns true, and the server
    answers them no more. A 2026-07-28 request's POST is closed now, that era's cancel; the others' cancels are
    returned, to be sent (:func:`send`). Each request named is withdrawn (:meth:`.pending.Unanswered.withdraw`)."""
    pending = bridge.pending
    sends: list[Awaitable[Any]] = []
    # (a cancel names its request within a session: none before the handshake's answer, nor on a sessionless server)
    sendable = bridge.endpoint is not None if bridge.legacy else bridge.session_id is not None
    for request_id in named:
        if pending.methods.get(request_id) == "initialize" or not pending.withdraw(request_id):
            continue
        exchange = bridge.open.pop(request_id, None)
        if exchange is not None:
            exchange.close()
            continue
        if not sendable:
            continue
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": request_id, "reason": reason}}
        sends.append(bridge.post(json.dumps(cancel).encode(), cancel, None))
    return sends


async def send(sends: list[Awaitable[Any]]) -> None:
    """Send the cancels :func:`cancels` made, in :data:`CANCEL_SECONDS` at the most (a failure is not said: the
    session's end follows, which ends its calls too)."""
    if sends:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), CANCEL_SECONDS)


async def end_of_input(bridge: Bridge) -> None:
    """The client closed the bridge's input: answers already on their way still reach it, for
    :data:`DRAIN_SECONDS` at most, but a request (any but ``initialize``) unanswered
    :data:`~..lines.END_OF_INPUT_GRACE_SECONDS` after it was sent is cancelled on the server (:func:`cancels`: its
    client quit, so nobody reads a later answer; a quick one, as when lines are piped in, is still answered); the
    session ends once nothing the client sent waits for the server (:meth:`.session.Bridge.settled`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DRAIN_SECONDS
    progressed = bridge.pending.progressed
    while True:
        progressed.clear()  # (before looking: what happens from here on wakes the wait below)
        if bridge.settled() or (left := deadline - loop.time()) <= 0:
            break
        due, next_due = bridge.pending.overdue(loop.time(), END_OF_INPUT_GRACE_SECONDS)
        await send(cancels(bridge, due, INPUT_CLOSED))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(progressed.wait(), left if next_due is None else min(left, next_due))
    await bridge.close()


async def stopped(bridge: Bridge, signum: int) -> None:
    """A stop signal (``signum``): every request still unanswered is answered at once with :func:`stopping_error`
    and cancelled on the server (:func:`cancels`), then the session ends. Each is withdrawn, an ``initialize`` too
    (not cancelled), so an answer of the server's that crosses the cancel is not relayed after the bridge's."""
    awaited = bridge.pending.awaited()
    sends = cancels(bridge, awaited, f"the bridge stopped ({signal_name(signum)})")
    for request_id in awaited:
        bridge.pending.withdraw(request_id)  # (done by cancels but for an initialize)
        bridge.emit(stopping_error(request_id, signum), withdrawn=True)
    await send(sends)
    await bridge.close()
