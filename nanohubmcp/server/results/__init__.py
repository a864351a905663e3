"""What a function returned, as the MCP result the wire carries; large results kept as resources."""

from __future__ import annotations

from ...protocol.client_event_cap import CLIENT_EVENT_BYTES

RESULT_URI_PREFIX = "nanohubmcp://results/"
"""Every kept result's URI starts with this (:class:`.store.ResultStore`); the rest is a random token and a file
suffix. Here rather than in the store, so that what only recognises such a URI (``resources/read``, the cache
layer) loads no store."""
DEFAULT_MAX_INLINE_BYTES = 256 * 1024
"""Results whose JSON (or PNG) is larger than this become a ``resource_link`` (256 KiB)."""
DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024
"""Most bytes of JSON one result may put in an answer (256 MiB; ``MCPServer(max_result_bytes=)``)."""
DEFAULT_MAX_EVENT_BYTES = CLIENT_EVENT_BYTES
"""Most bytes of one SSE event the server sends an answer or an ask in (1 MiB, the official ``mcp`` client's cap;
``MCPServer(max_event_bytes=)``)."""
DEFAULT_STORE_BYTES = 512 * 1024 * 1024
"""Most bytes of large results kept as resources, for all callers (512 MiB; ``MCPServer(max_kept_bytes=)``)."""
DEFAULT_STORE_BYTES_PER_OWNER = DEFAULT_STORE_BYTES // 4
"""Most bytes of large results one caller keeps (128 MiB; ``MCPServer(max_kept_bytes_per_owner=)``), and of inputs
its waiting batch jobs keep in their folders (:mod:`~nanohubmcp.server.executors.folder_budget`)."""
