"""JSON-RPC batches (protocol versions up to 2025-03-26): whether one may be served, and serving it.

Owns the batch bounds (``MAX_BATCH_MESSAGES``, ``MAX_BATCH_RESPONSE_BYTES``), :func:`batch_refusal`
(-32600 where the version has no batches, for an empty or an oversized batch) and
:func:`serve_batch` (member by member, in order, each through the connection seam like a single
message; ``initialize`` refused; the answer bounded). Reading a body into a batch and the version
in force are the connection seam's (:mod:`.connection`), which passes itself as ``connection``.

Source: JSON-RPC 2.0 § 6 (Batch); MCP 2025-03-26, Basic (batching, removed in 2025-06-18).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InvalidRequest, ProtocolError, error_response
from ..protocol import jsonenc, jsonrpc, versions

if TYPE_CHECKING:
    from .wire.principal import Principal
    from .wire.request import RequestContext
    from .wire.sessions import Session
    from .wire.streams import OutboundStream

__all__ = ["MAX_BATCH_MESSAGES", "MAX_BATCH_RESPONSE_BYTES", "BatchServing", "batch_refusal", "serve_batch"]


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    class Answered(Protocol):
        """What serving one member answers (:class:`~.connection.Reply`): its response message, if any."""

        @property
        def message(self) -> dict[str, Any] | None:
            """The JSON-RPC response, or None when none is owed."""
            ...


class BatchServing(Protocol):
    """What serving a batch uses of the connection seam (:class:`~.connection.Connection`)."""

    def request(
        self,
        message: jsonrpc.Message,
        *,
        version: str,
        session: Session | None = None,
        stream: OutboundStream | None = None,
        principal: Principal | None = None,
        trace_headers: Mapping[str, Any] | None = None,
    ) -> RequestContext:
        """The request context of one member."""
        ...

    async def serve(self, request: RequestContext) -> Answered:
        """Serve one member."""
        ...


MAX_BATCH_MESSAGES = 100
"""Most members one batch may have."""
MAX_BATCH_RESPONSE_BYTES = 16 << 20
"""Largest answer (bytes of JSON) one batch may build; members past it are refused."""


def batch_refusal(version: str, items: list[Any]) -> InvalidRequest | None:
    """Why this batch cannot be served (-32600), or None (JSON-RPC 2.0 § 6: an empty batch is invalid)."""
    if not versions.ProtocolVersion.of(version).batches:
        return InvalidRequest(
            f"JSON-RPC batches are not part of protocol {version} (removed in 2025-06-18); send one message per request"
        )
    if not items:
        return InvalidRequest("Invalid Request: empty batch")
    if len(items) > MAX_BATCH_MESSAGES:
        return InvalidRequest(
            f"Invalid Request: a batch may hold at most {MAX_BATCH_MESSAGES} messages, "
            f"this one has {len(items)}; split it"
        )
    return None


async def serve_batch(
    connection: BatchServing,
    items: list[Any],
    *,
    version: str,
    session: Session | None,
    stream: OutboundStream | None = None,
    principal: Principal | None = None,
    trace_headers: Mapping[str, Any] | None = None,
    large: bool = False,
) -> list[dict[str, Any]]:
    """Serve a JSON-RPC batch member by member, in order, through ``connection``; the replies in one
    list (each member with the batch's HTTP ``trace_headers``, as
    :meth:`Connection.request <.connection.Connection.request>` takes them). ``large``: the batch
    came in a body (or line) of at least :data:`~.wire.request.LARGE_MESSAGE_BYTES`; each member's
    request is marked :attr:`~.wire.request.RequestContext.large`, so its arguments are checked and
    converted on a worker thread as a large single message's are.

    ``initialize`` may not be part of a batch (MCP 2025-03-26, Basic § Lifecycle); call
    :func:`batch_refusal` first for whether the version has batches at all. The answer is
    bounded: once it passes :data:`MAX_BATCH_RESPONSE_BYTES`, the remaining requests are not
    served and each gets a -32600 saying so (still one reply per request, JSON-RPC 2.0 § 6).
    """
    replies: list[dict[str, Any]] = []
    size = 0
    for item in items:
        if size > MAX_BATCH_RESPONSE_BYTES:
            if isinstance(item, dict) and jsonrpc.valid_id(item.get("id")) and "method" in item:
                replies.append(
                    error_response(
                        InvalidRequest(
                            f"Not served: this batch's answer passed {MAX_BATCH_RESPONSE_BYTES} bytes; "
                            "send the remaining requests in another batch or one by one"
                        ),
                        item["id"],
                    )
                )
            continue
        try:
            message = jsonrpc.classify(item)
        except ProtocolError as exc:
            replies.append(error_response(exc, exc.request_id))
            continue
        if message.method == "initialize":  # answered with its own id, so the client can match it
            replies.append(error_response(InvalidRequest("initialize must not be part of a batch"), message.id))
            continue
        try:
            request = connection.request(message, version=version, session=session, stream=stream, principal=principal,
                                   trace_headers=trace_headers)
        except ProtocolError as exc:
            replies.append(error_response(exc, message.id))
            continue
        if large:
            request.large = True
        reply = (await connection.serve(request)).message
        if reply is not None:
            size += _written_size(reply)
            if size > MAX_BATCH_RESPONSE_BYTES:
                reply = error_response(
                    InvalidRequest(
                        f"Response too large for a batch (over {MAX_BATCH_RESPONSE_BYTES} bytes in all); "
                        "send this request on its own"
                    ),
                    message.id,
                )
            replies.append(reply)
        await asyncio.sleep(0)  # let other clients in between members
    return replies


def _written_size(reply: dict[str, Any]) -> int:
    """The bytes ``reply`` takes in the batch's answer; 0 for one JSON cannot hold (a middleware's ``bytes``
    or ``set``): the transport writes a short error in its place (:mod:`~nanohubmcp.protocol.sendable`)."""
    try:
        return len(jsonenc.dumpb(reply))
    except (TypeError, ValueError):
        return 0
