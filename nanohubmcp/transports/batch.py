"""JSON-RPC batches, for the protocol versions that have them (2024-11-05 and 2025-03-26).

Each member is served in order as if sent alone; the replies form one array. ``initialize``
may not be part of a batch (MCP 2025-03-26, Basic § Lifecycle), and an empty batch is an
invalid request (JSON-RPC 2.0 § 6). Batches were removed in 2025-06-18.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest, ProtocolError
from ..protocol import jsonrpc, versions
from ..server.request import RequestContext

if TYPE_CHECKING:
    from ..server.core import ServerCore
    from ..server.sessions import Session
    from ..server.streams import OutboundStream

BATCH_VERSIONS = (versions.V2024_11_05, versions.V2025_03_26)


def refusal(version: str, items: list[Any]) -> dict[str, Any] | None:
    """The -32600 error object when this batch cannot be served, else None."""
    if version not in BATCH_VERSIONS:
        return {"code": InvalidRequest.code,
                "message": f"JSON-RPC batches are not part of protocol {version} (removed in 2025-06-18); "
                           "send one message per request"}
    if not items:
        return {"code": InvalidRequest.code, "message": "Invalid Request: empty batch"}
    return None


async def serve_batch(core: ServerCore, items: list[Any], *, version: str, session: Session | None,
                      stream: OutboundStream | None = None) -> list[dict[str, Any]]:
    """Serve every member in order; returns the replies (notifications and responses get none)."""
    loop = asyncio.get_running_loop()
    replies = []
    for item in items:
        try:
            message = jsonrpc.classify(item)
            if message.method == "initialize":
                raise InvalidRequest("initialize must not be part of a batch")
        except ProtocolError as exc:
            replies.append(jsonrpc.error(getattr(exc, "request_id", None), exc.to_error()))
            continue
        request = RequestContext(message, version=version, loop=loop, session=session, stream=stream)
        reply = await core.dispatcher.handle(request)
        if reply is not None:
            replies.append(reply)
    return replies
