"""What a function returned, as the MCP result the wire carries; large results kept as resources."""

from __future__ import annotations

DEFAULT_MAX_INLINE_BYTES = 256 * 1024
"""Results whose JSON (or PNG) is larger than this become a ``resource_link`` (256 KiB)."""
DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024
"""Most bytes of JSON one result may put in an answer (256 MiB; ``MCPServer(max_result_bytes=)``)."""
