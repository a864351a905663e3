"""Asking a server, through the official ``mcp`` client, for its log messages (``notifications/message``)."""

from __future__ import annotations

import warnings
from typing import Any


async def ask_for_logs(client: Any, level: str = "info") -> None:
    """Have the official ``client`` (an ``mcp.ClientSession``) ask its server for log messages at ``level`` and above:
    ``logging/setLevel``, deprecated only from MCP 2026-07-28 (the SDK's deprecation warning is ignored here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await client.set_logging_level(level)
