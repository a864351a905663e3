"""What a notebook shows about its server: a rich status (HTML, with a plain-text fallback).

:class:`StatusView` renders a :meth:`KernelSession.status` snapshot: whether it serves and
where (the MCP endpoint clients connect to, ``<base URL>mcp`` — what ``%mcp url`` returns —
and the base URL: nanoHUB's weber URL when the kernel runs on a hub, else the local one), the
transport endpoints, the registered tools, and a ready-to-paste client configuration for
clients that only speak stdio, bridged by ``nanohubmcp bridge`` (no Node needed). IPython's display machinery picks
``_repr_html_`` in a notebook and ``__repr__`` in a terminal; nothing here imports IPython.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..desktop_config import bridge_launch, config_for

__all__ = [
    "DESKTOP_NOTE", "HINTS", "NAME_NOTE", "StatusView", "client_config", "endpoints", "first_line", "python_snippet",
    "through_jupyter",
]

_ENDPOINTS = (
    ("Streamable HTTP", "mcp"),
    ("SSE (legacy)", "sse"),
    ("OpenAPI schema", "openapi.json"),
    ("MCP discovery", ".well-known/mcp.json"),
    ("Server card", "mcp/server-card"),
    ("Direct tool calls", "tools/<name>"),
)

HINTS = {
    "cells": ("define one in a ", "%%mcp_tool", " cell"),
    "script": ("decorate a function with ", "@server.tool()", ""),
}
"""How to add a tool, by the way the server was built: ``(before, code, after)``."""
REVEAL = {"cells": "%mcp token", "script": "print(server.token)"}
"""What shows the token, by the way the server was built (the status never does: what a cell
shows is saved with the notebook, its checkpoints and its commits)."""
TOKEN_PLACEHOLDER = "<the token {} shows>"
"""What the client configuration carries in place of the token."""

JUPYTER_TOKEN_PLACEHOLDER = "<your Jupyter token>"
"""What a URL through Jupyter carries in place of Jupyter's token (``?token=...``)."""
JUPYTER_TOKEN_NOTE = (
    "this URL goes through the Jupyter server, which needs its own token in it: replace "
    f"{JUPYTER_TOKEN_PLACEHOLDER} with it (`jupyter server list` in a terminal of this session shows "
    "the server's URL with its token=); without it Jupyter answers 403 \"'_xsrf' argument missing\""
)
"""The status line (and ``%mcp url``'s note) of a URL through a Jupyter server that requires its token."""


def through_jupyter(mcp_url: str, placeholder: str = JUPYTER_TOKEN_PLACEHOLDER) -> str:
    """``mcp_url`` with Jupyter's token (a placeholder) as its ``token`` query parameter."""
    return f"{mcp_url}{'&' if '?' in mcp_url else '?'}token={placeholder}"


DESKTOP_NOTE = (
    "This entry is for your desktop: its python3 is the Python you install nanohubmcp into there (from a "
    "checkout: python3 -m pip install -e .), not this hub's; if the client does not find it, give that "
    "Python's absolute path (python3 -c 'import sys; print(sys.executable)')."
)
"""The line under the desktop entry of a server on a hub (whose own Python the desktop does not have)."""

NO_TOKEN = "  Token:      none - anyone who reaches the port can call the tools (NanohubMCP.token = '')"
"""The status line of a server with authorization turned off."""

NAME_NOTE = ("the server is named 'notebook': this kernel was not told its notebook's file name (Jupyter Server 2 "
             "tells it), and a server's name picks its state directory (stored Sim2L runs, jobs, history). The "
             "script nanohubmcp export writes is named after the notebook's file, so it is another server with "
             "state of its own; %config NanohubMCP.name = 'NAME' names both alike")
"""The status's note when the name fell back to ``notebook`` (:meth:`.config.NanohubMCP.named_unknowing`)."""
STUCK_NOTE = ("Stuck calls: {} (past tool_timeout and abandoned; each still holds a thread until its "
              "function returns - restart the kernel if the number keeps growing)")
"""The status line for calls abandoned after ``tool_timeout`` that have not returned."""


def first_line(text: str | None) -> str:
    """The first non-blank line of a description ("" for None or blank text)."""
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


def endpoints(base_url: str) -> list[tuple[str, str]]:
    """``[(label, url), ...]`` of every transport endpoint under ``base_url`` (trailing slash)."""
    return [(label, base_url + path) for label, path in _ENDPOINTS]


def client_config(name: str, mcp_url: str, token: str | None = None, *, hub: bool = False) -> dict[str, Any]:
    """A ``mcpServers`` entry (Claude Desktop, Cursor) that bridges a stdio-only client to
    ``mcp_url`` with ``nanohubmcp bridge``: stdio to the client, Streamable HTTP to the server.
    The entry is ``nanohubmcp desktop-config --url``'s: ``{"command": <this Python, absolute>,
    "args": ["-m", "nanohubmcp", "bridge", mcp_url]}``, since a desktop client starts it with a bare
    ``PATH`` where a bare ``nanohubmcp`` is not found. With ``hub`` (the kernel runs on a hub, the
    client on the user's desktop) the command is ``python3``, the desktop's Python into which its
    user installs nanohubmcp (:data:`DESKTOP_NOTE` says so), as the hub's Python is not there.

    With a ``token`` the bridge sends ``Authorization: Bearer <token>``; the token travels in
    ``env`` (``MCP_TOKEN``, which the bridge reads), not in the arguments. ``mcp_url`` is shown
    as given: through Jupyter it ends in ``?token=<your Jupyter token>``, a placeholder to replace.
    """
    return config_for(bridge_launch(mcp_url, name, token, elsewhere=hub), "claude")


def python_snippet(mcp_url: str, token: str | None, *, jupyter_token: bool = False) -> str:
    """Python that lists the server's tools with the official ``mcp`` client, as pasted; with a
    ``token`` it reads the token from ``$MCP_TOKEN`` (the snippet never carries it: it is shown
    in a notebook's saved output); with ``jupyter_token`` (a URL through a Jupyter server that
    requires its token) the URL gets ``?token=`` and Jupyter's token from ``$JUPYTER_TOKEN``."""
    headers = '{"Authorization": "Bearer " + os.environ["MCP_TOKEN"]}' if token else "{}"
    url = json.dumps(mcp_url)
    if jupyter_token:
        url = f'{json.dumps(through_jupyter(mcp_url, ""))} + os.environ["JUPYTER_TOKEN"]'
    return PYTHON_SNIPPET.format(url=url, headers=headers)


PYTHON_SNIPPET = """import asyncio
import os

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main():
    # httpx's default 5 s read timeout would cut off a tool that runs longer without progress
    http = httpx2.AsyncClient(headers={headers}, timeout=httpx2.Timeout(30, read=300))
    async with Client(streamable_http_client({url}, http_client=http)) as client:
        tools = await client.list_tools()
        print([tool.name for tool in tools.tools])

asyncio.run(main())
"""
"""The official SDK (``pip install mcp``) connecting with the token."""


class StatusView:
    """The server's status as rich output.

    Args:
        status: a ``KernelSession.status()`` snapshot.
        style: how its tools are added, for the "no tools yet" hint: ``"cells"`` (``%%mcp_tool``)
            or ``"script"`` (``@server.tool()`` on a server started with ``server.run()``).
    """

    def __init__(self, status: dict[str, Any], style: str = "cells") -> None:
        self.status = status
        self.hint = HINTS[style]
        self.reveal = REVEAL[style]

    def _token_line(self) -> str:
        if not self.status.get("token"):
            return NO_TOKEN.strip()
        return (f"Token:      required, not shown here (what a cell shows is saved with the notebook); "
                f"{self.reveal} shows it, and clients read it from $MCP_TOKEN")

    def _headline(self) -> str:
        s = self.status
        if not s["running"]:
            return f"MCP server '{s['name']}' v{s['version']} is stopped"
        return (
            f"MCP server '{s['name']}' v{s['version']} serving on {s['host']}:{s['port']} ({s['mode']} mode)"
        )

    def _client_url(self) -> str:
        """The MCP endpoint as a client outside uses it (with Jupyter's token where it needs one)."""
        s = self.status
        return through_jupyter(s["mcp_url"]) if s.get("jupyter_token") else str(s["mcp_url"])

    def _snippet(self) -> str:
        s = self.status
        token = TOKEN_PLACEHOLDER.format(self.reveal) if s.get("token") else None
        return json.dumps(client_config(s["name"], self._client_url(), token, hub=bool(s.get("hub"))), indent=2)

    def _python(self) -> str:
        s = self.status
        return python_snippet(s["mcp_url"], s.get("token"), jupyter_token=bool(s.get("jupyter_token")))

    def __repr__(self) -> str:
        s = self.status
        lines = [self._headline()]
        if s["running"]:
            lines.append(f"  MCP endpoint: {self._client_url()}")
            lines.append(f"  Base URL:   {s['public_url']}")
            if s.get("jupyter_token"):
                lines.append(f"  Jupyter:    {JUPYTER_TOKEN_NOTE}")
            lines.append("  " + self._token_line())
            if s["public_url"] != s["local_url"]:
                lines.append(f"  Local URL:  {s['local_url']}")
            if s.get("streaming"):
                lines.append(f"  Note: {s['streaming']}")
            if s.get("name_note"):
                lines.append(f"  Note: {s['name_note']}")
            lines.append("Endpoints:")
            lines += [f"  {label + ':':<20} {url}" for label, url in endpoints(s["public_url"])]
        lines.append(f"Tools ({len(s['tools'])}):")
        lines += [
            f"  {t['name']} [{t['runs']}]" + (f" - {t['description']}" if t["description"] else "")
            for t in s["tools"]
        ] or ["  (none yet: {}{}{})".format(*self.hint)]
        if s["resources"]:
            lines.append(f"Resources: {', '.join(s['resources'])}")
        if s["prompts"]:
            lines.append(f"Prompts: {', '.join(s['prompts'])}")
        if s.get("stuck_calls"):
            lines.append(STUCK_NOTE.format(s["stuck_calls"]))
        if s["running"]:
            lines.append("Client configuration (desktop clients, via nanohubmcp bridge):")
            lines += ["  " + line for line in self._snippet().splitlines()]
            if s.get("hub"):
                lines.append(f"  {DESKTOP_NOTE}")
            lines.append("Python client (official SDK):")
            lines += ["  " + line for line in self._python().splitlines()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        s = self.status
        esc = html.escape
        parts = [f"<div class='nanohubmcp-status'><b>{esc(self._headline())}</b>"]
        if s["running"]:
            where = "nanoHUB proxy" if s["hub"] else "this machine"
            parts.append(
                f"<p>MCP endpoint ({esc(where)}): <a href='{esc(s['mcp_url'])}' target='_blank'>"
                f"<code>{esc(self._client_url())}</code></a><br>Base URL: <code>{esc(s['public_url'])}</code><br>"
                + (f"Jupyter: {esc(JUPYTER_TOKEN_NOTE)}<br>" if s.get("jupyter_token") else "")
                + (f"Token: required, not shown here (what a cell shows is saved with the notebook); "
                   f"<code>{esc(self.reveal)}</code> shows it; clients send <code>Authorization: Bearer "
                   "&lt;token&gt;</code>, read from <code>$MCP_TOKEN</code>"
                   if s.get("token") else esc(NO_TOKEN.strip()))
                + "</p>"
            )
            if s.get("streaming"):
                parts.append(f"<p class='nanohubmcp-caveat'>Note: {esc(s['streaming'])}</p>")
            if s.get("name_note"):
                parts.append(f"<p class='nanohubmcp-caveat'>Note: {esc(s['name_note'])}</p>")
            rows = "".join(
                f"<tr><td>{esc(label)}</td><td><code>{esc(url)}</code></td></tr>"
                for label, url in endpoints(s["public_url"])
            )
            parts.append(f"<table><tr><th>Endpoint</th><th>URL</th></tr>{rows}</table>")
        if s["tools"]:
            rows = "".join(
                f"<tr><td><code>{esc(t['name'])}</code></td><td>{esc(t['runs'])}</td>"
                f"<td>{esc(t['description'])}</td></tr>"
                for t in s["tools"]
            )
            parts.append(f"<table><tr><th>Tool</th><th>Runs on</th><th>Description</th></tr>{rows}</table>")
        else:
            before, code, after = self.hint
            parts.append(f"<p>No tools yet: {esc(before)}<code>{esc(code)}</code>{esc(after)}.</p>")
        extra = [
            f"Resources: {', '.join(s['resources'])}" if s["resources"] else "",
            f"Prompts: {', '.join(s['prompts'])}" if s["prompts"] else "",
            STUCK_NOTE.format(s["stuck_calls"]) if s.get("stuck_calls") else "",
        ]
        parts += [f"<p>{esc(text)}</p>" for text in extra if text]
        if s["running"]:
            parts.append(
                "<details><summary>Client configuration (desktop clients, via nanohubmcp bridge)</summary>"
                f"<pre>{esc(self._snippet())}</pre>"
                + (f"<p>{esc(DESKTOP_NOTE)}</p>" if s.get("hub") else "")
                + "</details>"
                "<details><summary>Python client (official SDK)</summary>"
                f"<pre>{esc(self._python())}</pre></details>"
            )
        parts.append("</div>")
        return "".join(parts)
