"""What a function returned, as the MCP result the wire carries; large results kept as resources."""

from __future__ import annotations
