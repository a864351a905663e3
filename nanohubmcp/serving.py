"""How an ``MCPServer`` is served: runners, URLs, the startup banner, kernel detection.

Kept apart from the facade so ``MCPServer`` stays a thin set of decorators and verbs. The
transports are imported only here, and only when serving starts.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from .errors import ConfigurationError

if TYPE_CHECKING:
    from .transports.runner import Runner

log = logging.getLogger("nanohubmcp")

COMPAT_RUN_OPTIONS = frozenset({"require_session_header", "require_route_headers"})
"""0.4.x ``run()`` keywords accepted (and ignored: sessions and route headers are always checked)."""


TRANSPORTS = ("http", "stdio")
"""What ``run(transport=...)`` and ``$MCP_TRANSPORT`` accept."""


def resolve_transport(transport: str | None) -> str:
    """``transport``, else ``$MCP_TRANSPORT``, else ``"http"``; ConfigurationError for anything else."""
    chosen = (transport or os.environ.get("MCP_TRANSPORT") or "http").strip().lower()
    if chosen not in TRANSPORTS:
        raise ConfigurationError(f"transport must be one of {', '.join(TRANSPORTS)} (run(transport=...) or "
                                 f"$MCP_TRANSPORT), got {chosen!r}")
    return chosen


def serve_stdio(server: Any) -> None:
    """Serve ``server`` over stdio until the client closes stdin (blocking)."""
    from .transports.stdio import serve_stdio as serve

    serve(server)


def make_runner(server: Any, host: str, port: int | None, path_prefix: str, public_url: str | None,
                allowed_origins: Any, max_request_bytes: int, compat: dict[str, Any], *,
                token: str | None = None) -> Runner:
    """A transports ``Runner`` for ``server`` (nothing is bound yet).

    Logs a warning when ``host`` is not a loopback address and no authorization is configured.

    Raises:
        ConfigurationError: an unknown keyword, or an unusable option (the message says which).
    """
    from .transports.auth import bind_resource
    from .transports.config import TransportConfig
    from .transports.runner import Runner, resolve_port

    unknown = set(compat) - COMPAT_RUN_OPTIONS
    if unknown:
        raise ConfigurationError(f"unknown run() option(s): {', '.join(sorted(unknown))}")
    auth = verifier(server, token)
    config = TransportConfig(path_prefix=path_prefix, public_url=public_url, allowed_origins=allowed_origins,
                             max_request_bytes=max_request_bytes, auth=auth, loopback_bound=is_loopback(host))
    if auth is None and not is_loopback(host):
        log.warning(
            "serving on %s with no authorization: anyone who can reach the port can call every tool; "
            "pass token=... (or set MCP_TOKEN), or auth=..., or bind host='127.0.0.1'", host or "all interfaces")
    bind_resource(config, host)  # an unknowable audience fails here, before binding
    return Runner(server, config, host, resolve_port(port))


def verifier(server: Any, token: str | None) -> Any:
    """The verifier serving ``server`` with ``token`` (see ``MCPServer(auth=...)``), or None."""
    from .auth.verifiers import resolve

    return resolve(server.auth, token)


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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


def banner(server: Any, host: str, auth: Any = None) -> str:
    """The startup text: address, counts, every endpoint's public URL and, with ``auth`` (the
    verifier serving), how clients authenticate."""
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
    if auth is not None:
        lines += [
            "Authorization: every request sends 'Authorization: Bearer <token>'",
            f"  Resource metadata:    {base}.well-known/oauth-protected-resource",
        ]
    return "\n".join(lines)


def one_line_if_uncaught(exc: BaseException) -> None:
    """Should ``exc`` end the program uncaught, print ``Error: <message>`` instead of a traceback.

    For mistakes of setting, not of code (a port in use): the message says what to do, and the
    traceback would only bury it. Code that catches ``exc`` sees it unchanged.
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if value is exc:
            print(f"Error: {value}", file=sys.stderr)
        else:
            previous(kind, value, tb)

    sys.excepthook = hook
