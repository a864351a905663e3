"""What a server offers: component records, the registry, URI templates, skills, MCP Apps views."""

from __future__ import annotations
