"""A tool's ``KeyError`` reaches the model as ``KeyError: 'Ge'``, not as the lone ``'Ge'`` its ``str()`` is
(fresh-user trial 62, F1: ``{"Si": 1.12}[material]`` and pandas' ``df["col"]``, the most common failures in
a scientist's code, read as a quoted word the model could not act on). An exception made with one argument
that is no text (``ValueError(42)``) has its type lead the same way; an exception whose text names its
problem keeps it as it is (``IndexError``'s ``list index out of range``, a ``ValueError``'s sentence).

In memory (``nanohubmcp.testing.in_memory``) and over Streamable HTTP with the official ``mcp`` client.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from support import serve
from tool_errors import error_texts

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

EXPECTED = {
    "gap": "KeyError: 'Ge'",
    "column": "KeyError: 'col'",
    "number": "ValueError: 42",
    "index": "list index out of range",
    "sentence": "temperature must be positive",
}


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("lookups", state_dir=state_dir)

    @server.tool()
    def gap(material: str) -> float:
        """Band gap in eV."""
        return {"Si": 1.12}[material]

    @server.tool()
    def column() -> float:
        """A column a table lacks."""
        return float(pd.DataFrame({"a": [1.0]})["col"].sum())

    @server.tool()
    def number() -> str:
        """Raises with a number only."""
        raise ValueError(42)

    @server.tool()
    def index() -> int:
        """An index past the end."""
        return [1][3]

    @server.tool()
    def sentence() -> str:
        """Raises with a sentence."""
        raise ValueError("temperature must be positive")

    return server


ARGUMENTS = {"gap": {"material": "Ge"}}


def test_in_memory(tmp_path: Path) -> None:
    with in_memory(build(tmp_path)) as client:
        for name, text in EXPECTED.items():
            result = client.call_tool(name, ARGUMENTS.get(name, {}))
            assert result["isError"] is True, name
            assert result["content"] == [{"type": "text", "text": text}], name


def test_over_http_with_the_official_client(tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        assert error_texts(url, EXPECTED, ARGUMENTS) == EXPECTED
