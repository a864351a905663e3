"""nanohubmcp: turn plain Python functions into MCP servers — in scripts, nanoHUB tools and notebooks.

Importing the package configures no logging, changes no warning filters and starts no threads
or loops: it lives inside users' Jupyter kernels. Names are resolved lazily on first use, with the cyclic
garbage collector off while their modules import (as it was found once they have).

Example:
    ```python
    from nanohubmcp import MCPServer

    server = MCPServer("my-calculator")

    @server.tool()
    def add(a: float, b: float) -> float:
        \"\"\"Add two numbers together.\"\"\"
        return a + b

    server.run(port=8000)
    ```
"""

from __future__ import annotations

import gc
import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .auth.jwt import JWTVerifier
    from .auth.verifiers import StaticTokenVerifier, TokenVerifier
    from .decorators import async_tool, prompt, resource, tool
    from .errors import (
        ClientRequestError,
        ConfigurationError,
        InvalidArguments,
        NanohubMCPError,
        ProtocolError,
        RegistrationError,
        ResourceNotFound,
        ToolError,
    )
    from .facade import MCPServer
    from .protocol.content import (
        Audio,
        AudioContent,
        EmbeddedResource,
        Image,
        ImageContent,
        ResourceContent,
        ResourceLink,
        Role,
        TextContent,
    )
    from .protocol.result_types import (
        CallToolResult,
        GetPromptResult,
        Message,
        PromptMessage,
        PromptResult,
        ReadResourceResult,
        ResourceResult,
        ToolResult,
    )
    from .schema.secret import Secret
    from .server.asks.input_requests import InputRequired
    from .server.calls.context import Context
    from .server.middleware import Request
    from .server.registry.components import Tool
    from .server.registry.prompts import Prompt
    from .server.registry.resources import Resource, ResourceTemplate
    from .server.registry.skills import Skill
    from .server.wire.principal import Principal

_LAZY = {
    "MCPServer": ".facade",
    "Context": ".server.calls.context",
    "Tool": ".server.registry.components",
    "Resource": ".server.registry.resources",
    "ResourceTemplate": ".server.registry.resources",
    "Prompt": ".server.registry.prompts",
    "Skill": ".server.registry.skills",
    "InputRequired": ".server.asks.input_requests",
    "Request": ".server.middleware",
    "Principal": ".server.wire.principal",
    "Secret": ".schema.secret",
    "JWTVerifier": ".auth.jwt",
    "StaticTokenVerifier": ".auth.verifiers",
    "TokenVerifier": ".auth.verifiers",
    "tool": ".decorators",
    "async_tool": ".decorators",
    "resource": ".decorators",
    "prompt": ".decorators",
    "NanohubMCPError": ".errors",
    "ToolError": ".errors",
    "InvalidArguments": ".errors",
    "ProtocolError": ".errors",
    "RegistrationError": ".errors",
    "ResourceNotFound": ".errors",
    "ConfigurationError": ".errors",
    "ClientRequestError": ".errors",
    **dict.fromkeys(
        ("Audio", "AudioContent", "EmbeddedResource", "Image", "ImageContent", "ResourceContent", "ResourceLink",
         "Role", "TextContent"),
        ".protocol.content",
    ),
    **dict.fromkeys(
        ("CallToolResult", "GetPromptResult", "Message", "PromptMessage", "PromptResult", "ReadResourceResult",
         "ResourceResult", "ToolResult"),
        ".protocol.result_types",
    ),
}

__all__ = sorted([*_LAZY, "__version__", "load_ipython_extension", "unload_ipython_extension",
                  "_jupyter_labextension_paths"])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'nanohubmcp' has no attribute {name!r}")
    # No cyclic collection while the name's modules import (``MCPServer``'s: ~60 of ours): a pass then walks
    # modules, classes and functions that live as long as the process (~3 M instructions of a cold start's
    # ~507 M, bench/startup.md). A collector found off (the process's choice, or another thread's import
    # under way, which turns it back on as it ends) is left off.
    # Then what they made joins the oldest generation without a walk (``gc.freeze()`` and ``gc.unfreeze()``, which
    # only move the collector's lists): the first young pass would otherwise walk all of it (~9 M instructions),
    # to keep nearly all. The program's own young objects move with them: a cycle of its garbage made before the
    # name resolved is collected by the next full pass instead of a young one. Not done when anything is frozen
    # (a served process's start-up, a ``--workers`` parent's heap: ``unfreeze`` would thaw it).
    was_on = gc.isenabled()
    gc.disable()
    try:
        value = getattr(importlib.import_module(module, __name__), name)
    finally:
        if was_on:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext nanohubmcp``: register the magics and the ``NanohubMCP`` configurable."""
    from .jupyter.extension import load

    load(ipython)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """``%unload_ext nanohubmcp`` / ``%reload_ext``: stop the server and remove the magics."""
    from .jupyter.extension import unload

    unload(ipython)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the prebuilt panel extension shipped in the wheel."""
    return [{"src": "labextension", "dest": "nanohub-mcp"}]
