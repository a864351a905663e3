"""``%%mcp_view URI``: the cell's last expression (an HTML string or a ``_repr_html_`` object) is served
as an MCP Apps view, and ``%%mcp_tool --view URI`` links a tool to it; read by the official client.

The cell shows the HTML as the notebook displays it; re-running it with other HTML replaces the
view; mistakes are one-line UsageErrors that leave the earlier view in place.
"""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

FIGURE = """%%mcp_view ui://plots/figure --border --resource-domains https://cdn.example.org
class Figure:
    def __init__(self, label):
        self.label = label

    def _repr_html_(self):
        return f"<div id='fig'>{self.label}</div>"

Figure("first")
"""
TOOL = '''%%mcp_tool --view ui://plots/figure
def data(n: int = 3) -> dict:
    """Some data for the figure."""
    return {"x": list(range(n))}
'''


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def read(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        async with mcp_client(url) as client:
            (tool,) = (await client.list_tools()).tools
            (content,) = wire(await client.read_resource("ui://plots/figure"))["contents"]
            return wire(tool), content

    return run_async(go())


def test_a_view_cell_and_a_tool_cell_make_a_tool_with_its_view(kernel: LiveKernel) -> None:
    shown = kernel.run_ok(FIGURE)
    assert any("<div id='fig'>first</div>" in bundle.get("text/html", "") for bundle in shown.results)
    kernel.run_ok(TOOL)
    tool, content = read(server_url(kernel))
    assert tool["_meta"] == {"ui": {"resourceUri": "ui://plots/figure"}}
    assert content["mimeType"] == "text/html;profile=mcp-app"
    assert content["_meta"] == {"ui": {"csp": {"resourceDomains": ["https://cdn.example.org"]}, "prefersBorder": True}}
    assert "<div id='fig'>first</div>" in content["text"]
    assert "ui/initialize" in content["text"]

    kernel.run_ok(FIGURE.replace('Figure("first")', "\"<p id='again'>a string works too</p>\""))
    _, content = read(server_url(kernel))
    assert "<p id='again'>a string works too</p>" in content["text"]
    assert "first" not in content["text"]


MISTAKES = {
    "no expression at the end": ("%%mcp_view ui://plots/figure\nhtml = '<p>'\n", "end the cell with the view's HTML"),
    "not a ui:// URI": ("%%mcp_view plots/figure\n'<p>'\n", "a view's URI starts with ui://"),
    "not HTML": ("%%mcp_view ui://plots/figure\n42\n", "a view returned a value of type int: return an HTML string"),
    "raising cell": ("%%mcp_view ui://plots/figure\n1 / 0\n", "the cell raised ZeroDivisionError"),
    "bad option": ("%%mcp_view ui://plots/figure --colour red\n'<p>'\n", "unrecognized arguments: --colour"),
}


def test_mistakes_are_one_line_usage_errors_and_the_view_stays(kernel: LiveKernel) -> None:
    kernel.run_ok(FIGURE)
    kernel.run_ok(TOOL)
    for label, (cell, expected) in MISTAKES.items():
        result = kernel.run(cell)
        assert (result.status, result.ename) == ("error", "UsageError"), (label, result.ename, result.evalue)
        assert expected in (result.evalue or ""), (label, result.evalue)
        assert "\n" not in (result.evalue or ""), label
    _, content = read(server_url(kernel))
    assert "<div id='fig'>first</div>" in content["text"]
