"""How an ``MCPServer`` is served: runners, URLs, the startup banner, kernel detection.

Kept apart from the facade so ``MCPServer`` stays a thin set of decorators and verbs. The
transports are imported only here, and only when serving starts.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from .errors import ConfigurationError

COMPAT_RUN_OPTIONS = frozenset({"require_session_header", "require_route_headers"})
"""0.4.x ``run()`` keywords accepted (and ignored: sessions and route headers are always checked)."""


def make_runner(server: Any, host: str, port: int | None, path_prefix: str, public_url: str | None,
                allowed_origins: Any, max_request_bytes: int, compat: dict[str, Any]) -> Any:
    """A transports ``Runner`` for ``server`` (nothing is bound yet).

    Raises:
        ConfigurationError: an unknown keyword, or an unusable option (the message says which).
    """
    from .transports.config import TransportConfig
    from .transports.runner import Runner, resolve_port

    unknown = set(compat) - COMPAT_RUN_OPTIONS
    if unknown:
        raise ConfigurationError(f"unknown run() option(s): {', '.join(sorted(unknown))}")
    config = TransportConfig(path_prefix=path_prefix, public_url=public_url, allowed_origins=allowed_origins,
                             max_request_bytes=max_request_bytes)
    return Runner(server, config, host, resolve_port(port))


def base_url(runner: Any) -> str | None:
    """The base URL clients use while ``runner`` serves: its public URL, else a reachable local one."""
    if runner is None or runner.port is None:
        return None
    if runner.config.public_url:
        return str(runner.config.public_url)
    host = runner.host
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{runner.port}{runner.config.path_prefix}/"


def loop_running() -> bool:
    """True inside a running asyncio event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def in_kernel() -> bool:
    """True inside a Jupyter kernel (checked without importing IPython when it is not loaded)."""
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def banner(server: Any, host: str) -> str:
    """The startup text: address, counts and every endpoint's public URL."""
    base = server.url or ""
    reg = server.core.registry
    lines = [
        f"MCP Server '{server.name}' v{server.version} listening on {host}:{server.port}",
        f"  Tools: {len(reg.tools)}",
        f"  Resources: {len(reg.resources) + len(reg.templates)}",
        f"  Prompts: {len(reg.prompts)}",
        "Endpoints:",
        f"  Streamable HTTP:      {base}mcp",
        f"  SSE transport:        {base}sse",
        f"  OpenAPI schema:       {base}openapi.json",
        f"  MCP discovery:        {base}.well-known/mcp.json",
        f"  Direct tool calls:    {base}tools/<name>",
    ]
    return "\n".join(lines)
