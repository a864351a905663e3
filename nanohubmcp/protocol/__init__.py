"""Wire level: JSON-RPC 2.0 envelopes, MCP protocol versions and wire shapes. No I/O."""

from __future__ import annotations
