"""The most a call may ask its client in one request: :func:`refuse_oversized`.

A server→client request (``elicitation/create``, ``sampling/createMessage``) goes to a Streamable HTTP client as
one SSE event of the call's stream (or of the GET stream), and a 2026-07-28 call's input requests travel together
in one answer; the official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`) and loses the whole call with it ("Server-sent
event exceeded the 1048576 byte limit"). A question cut short would be another question, so such an ask is not
sent: the tool gets a :class:`~nanohubmcp.errors.ToolError` naming the limit and what to shorten (review r29 #3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...errors import ToolError
from ...protocol import jsonenc
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES

__all__ = ["MAX_ASK_BYTES", "refuse_oversized"]

MAX_ASK_BYTES: Final = CLIENT_EVENT_BYTES - EVENT_ENVELOPE_BYTES
"""The most bytes of an ask's ``params`` as JSON (UTF-8): one event's 1 MiB less its envelope."""

_SHORTEN: Final = {
    "elicitation/create": "its message (or its requestedSchema)",
    "sampling/createMessage": "its messages (or its systemPrompt)",
}


def refuse_oversized(requests: Mapping[str, Mapping[str, Any]] | Mapping[None, Mapping[str, Any]], *,
                     together: bool = False) -> None:
    """Refuse ``{key: {"method", "params"}}`` (key None: a single ask) that would not fit one SSE event.

    Args:
        requests: the asks, each body with ``method`` and ``params`` (a dict or None).
        together: they travel in one message (a 2026-07-28 call's ``input_required``): their sizes add up.
    Raises:
        ToolError: one ask's params (or, ``together``, all of them) are over :data:`MAX_ASK_BYTES` as JSON; the
            message names the method, the size, the limit and what to shorten.
        TypeError / ValueError: params JSON cannot write (as sending them would).
    """
    total = 0
    for key, body in requests.items():
        method = str(body.get("method"))
        size = len(jsonenc.dumps(body.get("params") or {}).encode("utf-8", "surrogatepass"))
        total += size
        if size > MAX_ASK_BYTES or (together and total > MAX_ASK_BYTES):
            named = f"{method} {key!r}" if key is not None else method
            what = _SHORTEN.get(method, "its params")
            said = f"{size} bytes" if not together or total == size else f"{total} bytes with the asks before it"
            raise ToolError(
                f"cannot ask the client: the {named} request is {said} as JSON, over the {MAX_ASK_BYTES} bytes one "
                f"request may carry (a client reads at most {CLIENT_EVENT_BYTES} bytes, 1 MiB, in one server-sent "
                f"event, and loses the call past it); shorten {what}")
