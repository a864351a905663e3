"""``%reload_ext nanohubmcp`` says what it brings back and what not (trial 73, F5: its unload half said "the %mcp
magics are removed" and its load half nothing, though the magics were back at once; then ``%mcp call`` of a tool the
reload dropped said "start it with %mcp start", which would serve no such tool). The load half now says the magics
are back and the cells' tools must be defined again; ``%mcp call`` of an unknown tool on a stopped server names it."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def a(x: int) -> int:
    """Twice x."""
    return 2 * x
'''


def test_reload_says_the_tools_are_gone_until_their_cells_run_again(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    unloaded, loaded = kernel.run_ok("%reload_ext nanohubmcp").stdout.strip().splitlines()
    assert unloaded.startswith("nanohubmcp unloaded: stopped the MCP server 'notebook' on port ")
    assert loaded == (
        "nanohubmcp loaded again: the %mcp magics are back; the MCP server starts at the next %%mcp_* cell or "
        "%mcp start, serving none of the 1 tool(s), 0 resource(s), 0 prompt(s) served before: run the cells that "
        "defined them (%%mcp_tool, %%mcp_resource, %%mcp_prompt, %mcp rappture ...) again.")

    call = kernel.run('r = %mcp call a {"x": 3}')
    assert call.ename == "UsageError"
    assert call.evalue == ("%mcp call a: no tool 'a': define it in a %%mcp_tool cell (after %reload_ext nanohubmcp, "
                           "run its cell again); %mcp tools lists the tools")

    kernel.run_ok(TOOL)  # its cell again: served, and called
    assert kernel.run_ok('r = %mcp call a {"x": 3}\nprint(r.text)').stdout.strip().endswith("6")

    kernel.run_ok("%mcp stop")  # a tool still defined on a stopped server: the advice to start it stays
    stopped = kernel.run('%mcp call a {"x": 3}')
    assert stopped.evalue == "the MCP server is not running; start it with %mcp start"

    assert kernel.run_ok("%reload_ext nanohubmcp\n%reload_ext nanohubmcp").stdout.strip().splitlines()[-1] == (
        "nanohubmcp loaded again: the %mcp magics are back; the MCP server starts at the next %%mcp_* cell or "
        "%mcp start.")  # (the second reload: nothing was served)
