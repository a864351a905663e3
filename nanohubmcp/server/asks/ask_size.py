"""The most a call may ask its client in one request: :func:`refuse_oversized`.

A server→client request (``elicitation/create``, ``sampling/createMessage``) goes to a Streamable HTTP client as
one SSE event of the call's stream (or of the GET stream), and a 2026-07-28 call's input requests travel together
in one answer; the official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`) and loses the whole call with it ("Server-sent
event exceeded the 1048576 byte limit"). A question cut short would be another question, so such an ask is not
sent: the tool gets a :class:`~nanohubmcp.errors.ToolError` naming the limit and what to shorten (review r29 #3).
The bound is the server's ``max_event_bytes`` (1 MiB by default; None: no bound, nothing refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...errors import ToolError
from ...protocol import jsonenc
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES, said_bound

__all__ = ["MAX_ASK_BYTES", "ask_bytes", "refuse_oversized"]

MAX_ASK_BYTES: Final = CLIENT_EVENT_BYTES - EVENT_ENVELOPE_BYTES
"""The most bytes of an ask's ``params`` as JSON (UTF-8) under the default bound: one event's 1 MiB less its
envelope (:func:`ask_bytes`)."""

_SHORTEN: Final = {
    "elicitation/create": "its message (or its requestedSchema)",
    "sampling/createMessage": "its messages (or its systemPrompt)",
}


def ask_bytes(bound: int) -> int:
    """The most bytes of an ask's ``params`` as JSON in one SSE event of ``bound`` bytes: ``bound`` less its
    envelope."""
    return bound - EVENT_ENVELOPE_BYTES


def refuse_oversized(requests: Mapping[str, Mapping[str, Any]] | Mapping[None, Mapping[str, Any]], *,
                     together: bool = False, bound: int | None = CLIENT_EVENT_BYTES) -> None:
    """Refuse ``{key: {"method", "params"}}`` (key None: a single ask) that would not fit one SSE event.

    Args:
        requests: the asks, each body with ``method`` and ``params`` (a dict or None).
        together: they travel in one message (a 2026-07-28 call's ``input_required``): their sizes add up.
        bound: the most bytes of one event (the server's ``max_event_bytes``); None: no bound, nothing refused.
    Raises:
        ToolError: one ask's params (or, ``together``, all of them) are over :func:`ask_bytes` of ``bound`` as
            JSON; the message names the method, the size, the limit and what to shorten.
        TypeError / ValueError: params JSON cannot write (as sending them would).
    """
    if bound is None:
        return
    most = ask_bytes(bound)
    total = 0
    for key, body in requests.items():
        method = str(body.get("method"))
        size = len(jsonenc.dumps(body.get("params") or {}).encode("utf-8", "surrogatepass"))
        total += size
        if size > most or (together and total > most):
            named = f"{method} {key!r}" if key is not None else method
            what = _SHORTEN.get(method, "its params")
            said = f"{size} bytes" if not together or total == size else f"{total} bytes with the asks before it"
            raise ToolError(
                f"cannot ask the client: the {named} request is {said} as JSON, over the {most} bytes one "
                f"request may carry (a client reads at most {said_bound(bound)}, in one server-sent "
                f"event, and loses the call past it); shorten {what}")
