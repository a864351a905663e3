"""A tool returning a plain list (or tuple) of data answers, like a numpy array, with
``structuredContent: {"result": [...]}`` in every protocol version that has structured content
(2025-06-18 on), beside its JSON text; REST answers the same ``{"result": [...]}``. A list of
figures and strings only stays one block each. An output schema describes that shape, as for an
array (``{"result": [...]}`` is checked against it); only a schema of ``"type": "array"`` takes the
list itself (2026-07-28, where structured content may be any JSON value).

A fresh-user trial found a list answered with its text alone, while the docs give lists, arrays and
tables one rule (trial25 F1).
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import numpy as np
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

RESULT_SCHEMA = {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "number"}}},
                 "required": ["result"]}


def build(*, array_schema: bool = False) -> MCPServer:
    server = MCPServer("lists")

    @server.tool()
    def scale(values: list[float], factor: int = 2) -> list:
        """Each value times factor."""
        return [v * factor for v in values]

    @server.tool()
    def scale_typed(values: list[float]) -> list[float]:
        """Each value doubled."""
        return [v * 2 for v in values]

    @server.tool()
    def pair() -> tuple[float, str]:
        """A tuple."""
        return (1.5, "eV")

    @server.tool()
    def rows() -> list:
        """A list of records."""
        return [{"x": 1, "y": None}, [1, 2]]

    @server.tool()
    def array() -> object:
        """The same numbers as an array."""
        return np.array([2.0, 4.0])

    @server.tool(output_schema=RESULT_SCHEMA)
    def described() -> list:
        """A list under a schema describing {"result": [...]}."""
        return [1.0, 2.0]

    if array_schema:  # (the official client refuses a tools/list with a schema not of "type": "object")
        @server.tool(output_schema={"type": "array", "items": {"type": "number"}})
        def bare() -> list:
            """A list under an array schema."""
            return [1.0, 2.0]

    return server


def test_a_list_is_structured_content_over_the_official_client() -> None:
    with serve(build()) as url:
        async def calls() -> dict[str, Any]:
            async with mcp_client(f"{url}mcp") as session:
                answers = {}
                for name, arguments in (("scale", {"values": [1, 2]}), ("scale_typed", {"values": [1, 2]}),
                                        ("pair", {}), ("rows", {}), ("array", {}), ("described", {})):
                    result = await session.call_tool(name, arguments)
                    assert not result.is_error, (name, result)
                    answers[name] = result
                return answers

        answers = anyio.run(calls)
        assert answers["scale"].structured_content == {"result": [2.0, 4.0]}
        assert answers["scale"].content[0].text == "[2.0,4.0]"  # the text is the list's JSON, as before
        assert answers["scale_typed"].structured_content == {"result": [2.0, 4.0]}
        assert answers["pair"].structured_content == {"result": [1.5, "eV"]}
        assert answers["rows"].structured_content == {"result": [{"x": 1, "y": None}, [1, 2]]}
        assert answers["array"].structured_content == answers["scale"].structured_content  # one rule
        assert answers["described"].structured_content == {"result": [1.0, 2.0]}  # held to its schema

        response = httpx2.post(f"{url}tools/scale", json={"values": [1, 2]}, timeout=30)
        assert (response.status_code, response.json()) == (200, {"result": [2.0, 4.0]})
        response = httpx2.post(f"{url}tools/described", json={}, timeout=30)
        assert (response.status_code, response.json()) == (200, {"result": [1.0, 2.0]})


@pytest.mark.parametrize(("version", "structured"), [
    ("2024-11-05", False), ("2025-03-26", False), ("2025-06-18", True), ("2025-11-25", True), ("2026-07-28", True),
])
def test_every_version_with_structured_content_gets_it(version: str, structured: bool) -> None:
    with in_memory(build(array_schema=True), version=version) as client:
        result = client.call_tool("scale", {"values": [1, 2]})
        assert result["content"] == [{"type": "text", "text": "[2.0,4.0]"}]
        assert result.get("structuredContent") == ({"result": [2.0, 4.0]} if structured else None)
        bare = client.call_tool("bare")
        assert not bare["isError"], bare
        assert bare.get("structuredContent") == ([1.0, 2.0] if version == "2026-07-28" else None)
