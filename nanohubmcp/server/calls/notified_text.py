"""How much of a progress or log message, or of an error result's text, a client is sent: :func:`notified_text`.

Over Streamable HTTP a call's ``notifications/progress`` and ``notifications/message`` go out as SSE events, one
each, and so does its answer once one of them went first; the official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`), failing the whole call ("Server-sent event
exceeded the 1048576 byte limit"), though the tool completed. So a message longer than
:data:`MAX_NOTIFIED_CHARS` is cut for the client, saying so; the server's log and the call's kept messages hold it
whole. An error result's text is cut by the same rule (:func:`.tool_checks.error_result`, trial54 N3), however
the answer goes. A job's status message is cut shorter still (:data:`~..jobs.record.MAX_PROGRESS_MESSAGE`).
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_NOTIFIED_CHARS", "notified_text"]

MAX_NOTIFIED_CHARS: Final = 65_536
"""The most characters of a progress or log message, or of an error result's text, sent to a client (a longer
one is cut, saying so): written as JSON even at 12 bytes a character (an emoji as two ``\\uXXXX``) it stays
well within the client's 1 MiB (:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`)."""


def notified_text(message: str) -> str:
    """``message`` (a progress or log message, an error result's text) as a client is sent it: itself up to
    :data:`MAX_NOTIFIED_CHARS` characters, else its first :data:`MAX_NOTIFIED_CHARS` followed by
    ``"… [cut: N characters in all; a client is sent 65536]"``.

    >>> notified_text("step 3 of 10")
    'step 3 of 10'
    >>> notified_text("x" * 70_000).endswith("x… [cut: 70000 characters in all; a client is sent 65536]")
    True
    """
    if len(message) <= MAX_NOTIFIED_CHARS:
        return message
    said = f"… [cut: {len(message)} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"
    return message[:MAX_NOTIFIED_CHARS] + said
