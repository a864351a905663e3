"""What a serving program shows its user: the startup banner, the base URL, a one-line error.

Text only: nothing here starts, stops or binds anything (that is :class:`~nanohubmcp.serving.Serving`'s).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .runner import Runner
    from .servable import Servable


def base_url(runner: Runner | None) -> str | None:
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


def banner(server: Servable, host: str, auth: object = None, processes: int = 1) -> str:
    """The startup text: address (and, ``processes`` above 1, how many serve it: ``... listening on
    127.0.0.1:8000, served by 4 processes``), counts, every endpoint's public URL and, with ``auth`` (the
    verifier serving), how clients authenticate. Resources count what ``resources/list`` lists;
    resource templates (``resources/templates/list``) are counted beside them when there are any."""
    base = server.url or ""
    reg = server.core.registry
    served_by = f", served by {processes} processes" if processes > 1 else ""
    lines = [
        f"MCP Server '{server.name}' v{server.version} listening on {host}:{server.port}{served_by}",
        f"  Tools: {len(reg.tools)}",
        f"  Resources: {len(reg.resources)}" + (f", resource templates: {len(reg.templates)}" if reg.templates else ""),
        f"  Prompts: {len(reg.prompts)}",
        "Endpoints:",
        f"  Streamable HTTP:      {base}mcp",
        f"  SSE transport:        {base}sse",
        f"  OpenAPI schema:       {base}openapi.json",
        f"  MCP discovery:        {base}.well-known/mcp.json",
        f"  Server card:          {base}mcp/server-card",
        f"  Direct tool calls:    {base}tools/<name>",
    ]
    if auth is not None:
        lines += [
            "Authorization: every request sends 'Authorization: Bearer <token>'",
            f"  Resource metadata:    {base}.well-known/oauth-protected-resource",
        ]
    return "\n".join(lines)


def one_line_if_uncaught(exc: BaseException, status: int = 1) -> None:
    """Should ``exc`` end the program uncaught, print ``Error: <message>`` instead of a traceback, and
    exit with ``status`` (2 for a setting that cannot work, as a command's usage errors; 1 for a failure
    to serve, such as a port in use).

    For mistakes of setting, not of code: the message says what to do, and the traceback would only
    bury it. Code that catches ``exc`` sees it unchanged.
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if value is exc:
            print(f"Error: {value}", file=sys.stderr, flush=True)
            if status != 1:
                raise SystemExit(status)  # honoured from an excepthook: the interpreter exits with it
        else:
            previous(kind, value, tb)

    sys.excepthook = hook
