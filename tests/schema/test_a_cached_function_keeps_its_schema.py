"""A tool wrapped by ``functools.lru_cache`` / ``functools.cache`` (a C wrapper, not a function) in a
module with ``from __future__ import annotations`` (as this one, and every exported script) keeps its
input schema: its string annotations resolve in the wrapped function's module. They were read
unresolved — ``x: int`` accepted any JSON value, with a warning that ``int`` has no JSON Schema form
(seen in CI's log of an export test)."""

from __future__ import annotations

import functools
import warnings

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationWarning


def test_an_lru_cached_tool_s_annotations_become_its_schema() -> None:
    server = MCPServer("cached")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegistrationWarning)

        @server.tool()
        @functools.lru_cache
        def square(x: int) -> int:
            """The square of x."""
            return x * x

        @server.tool()
        @functools.cache
        def scale(values: tuple[float, ...], factor: float = 2.0) -> list[float]:
            """Each value times factor."""
            return [v * factor for v in values]

    tools = {tool.name: tool for tool in server.core.registry.tools.values()}
    assert tools["square"].input_schema["properties"] == {"x": {"type": "integer"}}
    assert tools["scale"].input_schema["properties"]["factor"] == {"type": "number", "default": 2.0}
    assert tools["scale"].input_schema["properties"]["values"]["type"] == "array"
