"""JSON-RPC batches, for the protocol versions that have them (2024-11-05 and 2025-03-26).

Each member is served in order as if sent alone; the replies form one array. ``initialize``
may not be part of a batch (MCP 2025-03-26, Basic § Lifecycle), and an empty batch is an
invalid request (JSON-RPC 2.0 § 6). Batches were removed in 2025-06-18.

Batches are bounded: at most :data:`MAX_BATCH_MESSAGES` members, and an answer of at most
:data:`MAX_BATCH_RESPONSE_BYTES`; past that a member is not served and its reply is a -32600
error saying so (the array stays one reply per request, as JSON-RPC 2.0 § 6 asks).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest, ProtocolError
from ..protocol import jsonenc, jsonrpc, versions
from ..server.request import RequestContext

if TYPE_CHECKING:
    from ..server.core import ServerCore
    from ..server.sessions import Session
    from ..server.streams import OutboundStream

BATCH_VERSIONS = (versions.V2024_11_05, versions.V2025_03_26)
MAX_BATCH_MESSAGES = 100
"""Most members one batch may have."""
MAX_BATCH_RESPONSE_BYTES = 16 << 20
"""Largest answer (bytes of JSON) one batch may build; members past it are refused."""


def refusal(version: str, items: list[Any]) -> dict[str, Any] | None:
    """The -32600 error object when this batch cannot be served, else None."""
    if version not in BATCH_VERSIONS:
        return {"code": InvalidRequest.code,
                "message": f"JSON-RPC batches are not part of protocol {version} (removed in 2025-06-18); "
                           "send one message per request"}
    if not items:
        return {"code": InvalidRequest.code, "message": "Invalid Request: empty batch"}
    if len(items) > MAX_BATCH_MESSAGES:
        return {"code": InvalidRequest.code,
                "message": f"Invalid Request: a batch may hold at most {MAX_BATCH_MESSAGES} messages, this one has "
                           f"{len(items)}; split it"}
    return None


async def serve_batch(core: ServerCore, items: list[Any], *, version: str, session: Session | None,
                      stream: OutboundStream | None = None) -> list[dict[str, Any]]:
    """Serve every member in order; returns the replies (notifications and responses get none)."""
    loop = asyncio.get_running_loop()
    replies: list[dict[str, Any]] = []
    size = 0
    for item in items:
        if size > MAX_BATCH_RESPONSE_BYTES:
            if isinstance(item, dict) and jsonrpc.valid_id(item.get("id")) and "method" in item:
                replies.append(jsonrpc.error(item["id"], {
                    "code": InvalidRequest.code,
                    "message": f"Not served: this batch's answer passed {MAX_BATCH_RESPONSE_BYTES} bytes; "
                               "send the remaining requests in another batch or one by one"}))
            continue
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
            size += len(jsonenc.dumpb(reply))
            if size > MAX_BATCH_RESPONSE_BYTES:
                reply = jsonrpc.error(message.id, {
                    "code": InvalidRequest.code,
                    "message": f"Response too large for a batch (over {MAX_BATCH_RESPONSE_BYTES} bytes in all); "
                               "send this request on its own"})
            replies.append(reply)
        await asyncio.sleep(0)  # let other connections in between members
    return replies
