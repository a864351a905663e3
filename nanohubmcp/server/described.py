"""What a transport reads of the server besides serving messages: :class:`Described`, the server as its
documents tell it (the info document, nanoHUB's discovery document, the OpenAPI document, the Server Card
and the catalogs, ``server.json``).

A transport gets it from its :class:`~.connection.Connection` (``connection.described``), never from the
core itself: the documents read who the server is and what it offers, nothing else. The server core
satisfies it structurally; nothing here is written to.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .registry.components import Tool

__all__ = ["Described", "Offered", "ToolListing"]


class ToolListing(Protocol):
    """The tools, read: one by name, all in their listing order, how many."""

    def get(self, key: str) -> Tool | None:
        """The tool registered as ``key``, or None."""
        ...

    def values(self) -> Sequence[Tool]:
        """Every tool, in listing order."""
        ...

    def __len__(self) -> int: ...


class Offered(Protocol):
    """What the server offers, as its documents count and list it."""

    @property
    def tools(self) -> ToolListing: ...

    @property
    def resources(self) -> Sized: ...

    @property
    def templates(self) -> Sized: ...

    @property
    def prompts(self) -> Sized: ...


class Described(Protocol):
    """The server as its documents describe it: its identity (``serverInfo``, its name, version and
    instructions, from which the cards take a title and a description), its capabilities, what it offers."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def instructions(self) -> str | None: ...

    @property
    def registry(self) -> Offered: ...

    def server_info(self) -> dict[str, Any]:
        """``serverInfo``."""
        ...

    def capabilities(self, version: str) -> dict[str, Any]:
        """Server capabilities for ``version``."""
        ...
