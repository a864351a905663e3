"""The app file ``start_mcp --rappture PATH`` serves: a server built from tools of other formats.

``start_mcp`` runs an app file in a child process (``nanohubmcp.nanohub.child``); for
``--rappture`` it runs this file, passing the tools in the environment variable
:data:`SOURCES_ENV` as JSON, a list of ``{"kind": "rappture" | "sim2l", "path": ..., "name"?:
..., "background"?: true, "cell_timeout"?: seconds}`` (a Sim2L's). It defines the module-level
``server`` app files define.

It sits outside the layered packages on purpose: it builds an ``MCPServer`` (the facade) from a
description the launcher, which lies below the facade, wrote.
"""

from __future__ import annotations

import json
import os
from typing import Any

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.facade import MCPServer
from nanohubmcp.nanohub.child import SOURCES_ENV

__all__ = ["SOURCES_ENV", "build_server", "server"]


def build_server(sources: list[dict[str, Any]], name: str | None = None) -> MCPServer:
    """An ``MCPServer`` serving ``sources``; named after its one tool, else ``name`` or ``nanohub-tools``.

    Raises:
        ConfigurationError: an entry of an unknown kind, or without a path.
        RegistrationError: a tool that cannot be read (the message says why).
    """
    if not sources:
        raise ConfigurationError(f"no tools to serve (${SOURCES_ENV} is empty)")
    server = MCPServer(name or "nanohub-tools")
    for entry in sources:
        kind, path = entry.get("kind"), entry.get("path")
        options = {k: v for k, v in entry.items() if k in ("name", "background") and v is not None}
        if kind == "sim2l" and entry.get("cell_timeout") is not None:
            options["cell_timeout"] = entry["cell_timeout"]
        if not isinstance(path, str):
            raise ConfigurationError(f"${SOURCES_ENV}: an entry without a path: {entry!r}")
        if kind == "rappture":
            server.add_rappture_tool(path, **options)
        elif kind == "sim2l":
            server.add_sim2l(path, **options)
        else:
            raise ConfigurationError(f"${SOURCES_ENV}: unknown kind {kind!r} (rappture or sim2l)")
    return server


def _from_environment() -> MCPServer:
    raw = os.environ.get(SOURCES_ENV, "")
    try:
        sources = json.loads(raw) if raw else []
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"${SOURCES_ENV} is not JSON ({exc.msg})") from None
    if not isinstance(sources, list):
        raise ConfigurationError(f"${SOURCES_ENV} must be a JSON list of tools")
    return build_server(sources, os.environ.get(SOURCES_ENV + "_NAME") or None)


server = _from_environment() if __name__ != "nanohubmcp.hub_app" else None
