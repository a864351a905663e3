"""What a ``%%mcp_tool``, ``%%mcp_resource``, ``%%mcp_prompt`` or ``%%mcp_view`` line asks for, as records.

Owns :class:`ToolSpec`, :class:`ResourceSpec`, :class:`PromptSpec`, :class:`ViewSpec` (frozen
dataclasses) and how each becomes the keyword arguments of the ``MCPServer`` method that registers
it (``registration_options()``). Parsing a line into one is :mod:`nanohubmcp.jupyter.cellspec`'s;
registering it, the magics' and the exporter's. No IPython, no Tornado.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PromptSpec", "ResourceSpec", "ToolSpec", "ViewSpec"]


@dataclass(frozen=True)
class ToolSpec:
    """What a ``%%mcp_tool`` line asks for.

    Attributes:
        name / description / title: listing fields (None: from the function).
        tags: tags given with ``--tags a,b``.
        background: ``--async``: register as a job tool (``server.async_tool``).
        executor: ``--executor NAME``: where its jobs run (None: the server's job executor).
        executor_options: the executor's options the line gave (``--slurm-time``,
            ``--submit-venue``, ``--executor-option KEY=VALUE``...).
        read_only / destructive / idempotent / open_world: the annotation hints that were given.
        main: ``--main``: run calls on the kernel's own thread (live notebooks only; the
            exporter ignores it).
        cache / cache_ttl: ``--cache`` (``"private"``) or ``--cache-shared`` (``"shared"``), and
            ``--cache-ttl SECONDS``.
        provenance: False with ``--no-provenance``.
        source: the defining cell's text (set by the live magic; its code hash in provenance
            records; never part of the registration options).
    """

    name: str | None = None
    description: str | None = None
    title: str | None = None
    tags: frozenset[str] = field(default_factory=frozenset)
    background: bool = False
    executor: str | None = None
    executor_options: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    main: bool = False
    view: str | None = None
    cache: str | None = None
    cache_ttl: float | None = None
    provenance: bool | None = None
    source: str | None = None

    def annotations(self) -> dict[str, bool] | None:
        """The MCP tool annotations the flags give (only the hints that were set), or None."""
        hints = {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }
        chosen = {key: True for key, value in hints.items() if value}
        return chosen or None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_tool`` / ``@server.tool(...)`` (only those given)."""
        options: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "title": self.title,
            "tags": self.tags or None,
            "annotations": self.annotations(),
            "executor": self.executor,
            "executor_options": dict(self.executor_options) or None,
            "view": self.view,
            "cache": {"private": True, "shared": "shared"}.get(self.cache or ""),
            "cache_ttl": self.cache_ttl,
            "provenance": self.provenance,
        }
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class ResourceSpec:
    """What a ``%%mcp_resource URI`` line asks for (``uri`` may be a ``{template}``)."""

    uri: str
    mime_type: str | None = None
    name: str | None = None
    description: str | None = None
    title: str | None = None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_resource`` after the URI (only those given)."""
        options = {
            "mime_type": self.mime_type,
            "name": self.name,
            "description": self.description,
            "title": self.title,
        }
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class PromptSpec:
    """What a ``%%mcp_prompt`` line asks for."""

    name: str | None = None
    description: str | None = None
    title: str | None = None

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_prompt`` (only those given)."""
        options = {"name": self.name, "description": self.description, "title": self.title}
        return {key: value for key, value in options.items() if value is not None}


@dataclass(frozen=True)
class ViewSpec:
    """What a ``%%mcp_view URI`` line asks for (an MCP Apps view)."""

    uri: str
    name: str | None = None
    description: str | None = None
    title: str | None = None
    border: bool = False
    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()

    def registration_options(self) -> dict[str, Any]:
        """Keyword arguments for ``MCPServer.add_app_view`` after the URI and HTML (only those given)."""
        csp = {
            key: list(value)
            for key, value in (("connect_domains", self.connect_domains), ("resource_domains", self.resource_domains))
            if value
        }
        options = {
            "name": self.name,
            "description": self.description,
            "title": self.title,
            "csp": csp or None,
            "prefers_border": True if self.border else None,
        }
        return {key: value for key, value in options.items() if value is not None}
