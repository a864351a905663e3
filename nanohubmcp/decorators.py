"""Module-level decorators that only *mark* functions; ``server.include(obj)`` registers them.

They let a library of tools be written without a server at hand (a module of tools imported by
several servers): ``@tool()``, ``@async_tool()``, ``@resource(uri)``, ``@prompt()`` take the same
options as the ``MCPServer`` methods of the same names.

Example:
    ```python
    import nanohubmcp

    @nanohubmcp.tool()
    def add(a: float, b: float) -> float:
        return a + b

    server = nanohubmcp.MCPServer("calc")
    server.include([add])
    ```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import RegistrationError

_MARK = "__nanohubmcp__"


def marked(fn: object) -> tuple[str, dict[str, Any]] | None:
    """The ``(kind, options)`` one of these decorators left on ``fn``, or None for an unmarked object."""
    mark = getattr(fn, _MARK, None)
    return mark if isinstance(mark, tuple) else None


def _marker(kind: str, fn: Callable[..., Any] | None, options: dict[str, Any]) -> Any:
    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise RegistrationError(f"@{kind} was given {func!r}, which is not callable")
        setattr(func, _MARK, (kind, options))
        return func

    return mark(fn) if fn is not None else mark


def tool(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Mark a function as a tool (options as ``MCPServer.tool``)."""
    return _marker("tool", fn, options)


def async_tool(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Mark a function as an async (job) tool (options as ``MCPServer.async_tool``)."""
    return _marker("async_tool", fn, options)


def resource(uri: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function as the resource at ``uri`` (options as ``MCPServer.resource``)."""
    if callable(uri):
        raise RegistrationError("@resource needs a URI: write @resource('scheme://path')")
    return _marker("resource", None, {"uri": uri, **options})


def prompt(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Mark a function as a prompt (options as ``MCPServer.prompt``)."""
    return _marker("prompt", fn, options)
