"""The status names the MCP endpoint (`%mcp url`) and the base URL; the empty-tools hint fits the style."""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, server_url

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def echo(text: str) -> str:
    """Return the text."""
    return text
'''
EMPTY_SCRIPT = '''
from nanohubmcp import MCPServer

server = MCPServer("empty")
server.run(port=0)
'''


def test_the_status_labels_the_endpoint_mcp_url_returns(kernel: LiveKernel) -> None:
    shown = kernel.run_ok(TOOL)
    url = server_url(kernel)
    html = next(bundle["text/html"] for bundle in shown.results if "text/html" in bundle)
    assert f"MCP endpoint: {url}\n" in shown.text
    assert f"Base URL:   {url.removesuffix('mcp')}\n" in shown.text
    assert f"MCP endpoint (this machine): <a href='{url}'" in html


def test_a_script_server_without_tools_hints_at_the_decorator(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel()
    shown = live.run_ok(EMPTY_SCRIPT)
    html = next(bundle["text/html"] for bundle in shown.results if "text/html" in bundle)
    assert "(none yet: decorate a function with @server.tool())" in shown.text
    assert "No tools yet: decorate a function with <code>@server.tool()</code>." in html
    live.run_ok("server.stop()")


def test_a_session_without_tools_hints_at_the_cell_magic(kernel: LiveKernel) -> None:
    shown = kernel.run_ok("%mcp start")
    assert "(none yet: define one in a %%mcp_tool cell)" in shown.text
