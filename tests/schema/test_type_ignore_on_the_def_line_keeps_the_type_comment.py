"""Regression (issue 2): a ``# type: ignore[...]`` on the ``def`` line hid the PEP 484 function
type comment on the next line, so the reference README's tools lost their parameter types.

Code checked with mypy often carries ``# type: ignore[no-untyped-def]`` on untyped ``def``
lines; the signature comment that follows is still the function's type comment (PEP 484,
"Suggested syntax for Python 2.7 and straddling code").
"""

from __future__ import annotations

from nanohubmcp import MCPServer

NUMBERS = {"a": {"type": "number"}, "b": {"type": "number"}}


def schema_of(server: MCPServer, name: str) -> dict:
    tool = server.core.registry.tools.get(name)
    assert tool is not None
    return tool.input_schema


def test_a_type_ignore_on_the_def_line_does_not_hide_the_signature_comment() -> None:
    server = MCPServer("type-ignore")

    @server.tool()
    def add(a, b):  # type: ignore[no-untyped-def]
        # type: (float, float) -> float
        """Add two numbers together."""
        return float(a) + float(b)

    assert schema_of(server, "add")["properties"] == NUMBERS


def test_the_same_tool_without_the_ignore_is_typed() -> None:
    server = MCPServer("no-ignore")

    @server.tool()
    def add(a, b):
        # type: (float, float) -> float
        """Add two numbers together."""
        return float(a) + float(b)

    assert schema_of(server, "add")["properties"] == NUMBERS
