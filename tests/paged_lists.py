"""A server whose lists come in pages, for the tests of list cursors (``nextCursor``): ``list_page_size=2``, an async
tool ``work(n)`` (doubles ``n`` in the background: a ``tools/call`` with ``task`` makes a task to list) and three
plain tools ``one``, ``two``, ``three`` (each answers its name), so ``tools/list`` is three pages of six tools with
the built-in ``get_job_result`` and ``cancel_job``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nanohubmcp import MCPServer

PAGE_SIZE = 2
PLAIN_TOOLS = ("one", "two", "three")


def paged_server(name: str, **options: Any) -> MCPServer:
    """``MCPServer(name, list_page_size=2, **options)`` with ``work`` and the :data:`PLAIN_TOOLS` (see the module
    docstring)."""
    server = MCPServer(name, list_page_size=PAGE_SIZE, **options)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    for tool in PLAIN_TOOLS:
        server.tool(name=tool, description=tool)(_answering(tool))
    return server


def _answering(text: str) -> Callable[[], str]:
    return lambda: text
