"""The official ``mcp`` client in memory: :func:`memory_streams` and :func:`client_session`.

The ``mcp`` package is imported when one of these is called, not before: install it yourself
(``pip install mcp``) to use them; :class:`~nanohubmcp.testing.MemoryClient` needs nothing.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..protocol import jsonenc
from ..server.wire.store_close import wait_closed
from ..transports.memory import MemoryPeer
from .scratch import scratch_state

if TYPE_CHECKING:
    from ..facade import MCPServer
    from ..server.wire.principal import Principal

__all__ = ["client_session", "memory_streams"]


@contextlib.asynccontextmanager
async def memory_streams(server: MCPServer, *, principal: Principal | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The two streams of an official ``mcp`` client connected to ``server`` in this process.

    Yields ``(read_stream, write_stream)``, the pair ``mcp.ClientSession(read_stream,
    write_stream, ...)`` takes; the context manager itself is a transport ``mcp.Client`` takes
    (``mcp.Client(memory_streams(server), mode="2026-07-28")`` speaks the stateless era). Each
    message the client writes is served through the same connection seam as a message on stdio or
    HTTP (see :mod:`nanohubmcp.transports.memory`), requests concurrently, so the client can answer an
    elicitation while the call that asked waits. A message the SDK cannot read arrives on the read
    stream as the exception the SDK raised reading it, as on its stdio transport.
    The server keeps its state in a temporary directory unless one is named, as for
    :class:`~nanohubmcp.testing.MemoryClient`.

    Args:
        server: the ``MCPServer`` (it need not be started).
        principal: the caller every request comes from, as if the server's ``auth=`` had
            authenticated it (per-tool ``scopes=``, ``ctx.principal``); None: none.

    Raises:
        ImportError: the ``mcp`` package is not installed.

    Example:
        ```python
        async with memory_streams(server) as (read, write), mcp.ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("add", {"a": 1, "b": 2})
        ```
    """
    import anyio
    from mcp.shared.message import SessionMessage

    adapter = _message_adapter()
    to_client, client_reads = anyio.create_memory_object_stream[Any](math.inf)
    client_writes, from_client = anyio.create_memory_object_stream[Any](math.inf)

    def deliver(message: Any) -> None:  # a message (a dict); the official client sends no batch
        try:
            item: Any = SessionMessage(adapter(jsonenc.dumpb_sent(message)))
        except ValueError as exc:  # pydantic's ValidationError: the client sees why it cannot read it
            item = exc
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            to_client.send_nowait(item)

    scratch_state(server)
    peer = MemoryPeer(server, deliver, principal=principal)

    async def serve(item: Any) -> None:
        reply = await peer.deliver(item.message.model_dump_json(by_alias=True, exclude_unset=True).encode())
        if reply is not None:
            deliver(reply)

    async def pump() -> None:
        async with anyio.create_task_group() as requests:
            async for item in from_client:
                requests.start_soon(serve, item)

    async with to_client, from_client, anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield client_reads, client_writes
        finally:
            closing = peer.close()
            with anyio.CancelScope(shield=True):  # (a shared store's queued log entries written first)
                await wait_closed(closing)
            group.cancel_scope.cancel()


def _message_adapter() -> Any:
    """JSON bytes -> the SDK's JSON-RPC message model (``mcp`` 2.x keeps its types in ``mcp_types``)."""
    try:
        from mcp_types import jsonrpc_message_adapter
    except ImportError:  # mcp 1.x
        from mcp.types import JSONRPCMessage

        model: Any = JSONRPCMessage  # a pydantic root model there (a union of models in 2.x)
        return model.model_validate_json
    return lambda data: jsonrpc_message_adapter.validate_json(data, by_name=False)


@contextlib.asynccontextmanager
async def client_session(server: MCPServer, *, principal: Principal | None = None,
                         **session_options: Any) -> AsyncIterator[Any]:
    """An official ``mcp.ClientSession`` connected to ``server`` in this process, initialized.

    The session speaks the latest version with ``initialize`` the SDK knows (the handshake era);
    for the stateless era use ``mcp.Client(memory_streams(server), mode="2026-07-28")``.

    Args:
        server: the ``MCPServer`` (it need not be started).
        principal: see :func:`memory_streams`.
        session_options: ``mcp.ClientSession``'s keywords: ``elicitation_callback``,
            ``sampling_callback``, ``list_roots_callback``, ``logging_callback``,
            ``message_handler``, ``read_timeout_seconds``, ...

    Raises:
        ImportError: the ``mcp`` package is not installed.

    Example:
        ```python
        async with client_session(server) as session:
            result = await session.call_tool("add", {"a": 1, "b": 2})
            assert result.structured_content == {"result": 3}
        ```
    """
    from mcp import ClientSession

    async with memory_streams(server, principal=principal) as (read, write), \
            ClientSession(read, write, **session_options) as session:
        await session.initialize()
        yield session
