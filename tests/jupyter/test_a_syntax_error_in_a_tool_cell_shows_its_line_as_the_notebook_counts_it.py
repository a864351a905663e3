"""A syntax error in a ``%%mcp_tool`` cell names the line as JupyterLab numbers the cell's lines (the magic's line
is line 1), shows that line with a caret as IPython shows a syntax error (``Cell In[N], line L``), and says that
nothing was registered and which tool of an earlier run keeps serving (the edited cell's, by its cell id or by the
name of the function it defines). Real kernel, real server, the official client.

Found by a fresh-user trial (trial64 F7): "syntax error on line 1 of the cell" for the cell's line 2, no source
line, and the old tool served on silently (a client sending the new argument got "Additional properties are not
allowed")."""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

GOOD = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''
EDITED = '''%%mcp_tool
def add(a: float, b: float, c: float = 0.0 -> float:
    """Add three numbers."""
    return a + b + c
'''


def test_the_error_names_the_cells_line_shows_it_and_says_the_earlier_tool_serves(kernel: LiveKernel) -> None:
    kernel.run_ok(GOOD, cell_id="cell-add")
    for cell_id in ("cell-add", None):  # the cell run again (JupyterLab's cellId), or a cell not known by its id
        # a running cell's count is one less than the shell's (IPython counts on as it starts a cell): the next
        # cell's is this one's shell count
        label = f"  Cell In[{kernel.run_ok('print(get_ipython().execution_count)').stdout.strip()}], line 2"
        result = kernel.run(EDITED, cell_id=cell_id)
        assert result.status == "error", result
        assert result.ename == "UsageError", result.evalue
        assert result.evalue is not None
        assert result.evalue.startswith("%%mcp_tool: syntax error on line 2 of the cell: "), result.evalue
        assert result.evalue.endswith("; nothing was registered (the tool 'add' of an earlier run keeps serving)"), \
            result.evalue
        assert "\n" not in result.evalue
        shown = result.stderr.splitlines()
        assert shown[0] == label, result.stderr  # trial69 T69-4: it named the next cell, In[N+1]
        assert shown[1].strip() == "def add(a: float, b: float, c: float = 0.0 -> float:", result.stderr
        assert shown[2].strip(), result.stderr
        assert set(shown[2].strip()) <= {"^", "~"}, result.stderr
        assert shown[3].startswith("SyntaxError: "), result.stderr
    url = server_url(kernel)

    async def call() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool("add", {"a": 2, "b": 3})

    assert run_async(call()).content[0].text == "5.0"  # the earlier add serves


def test_a_new_cells_syntax_error_says_nothing_was_registered(kernel: LiveKernel) -> None:
    result = kernel.run("%%mcp_tool\n\n\ndef sub(a: float, b: float) -> float\n    return a - b\n")
    assert result.ename == "UsageError", result.evalue
    assert result.evalue is not None
    assert result.evalue.startswith("%%mcp_tool: syntax error on line 4 of the cell: "), result.evalue
    assert result.evalue.endswith("; nothing was registered"), result.evalue
    assert "], line 4\n    def sub(a: float, b: float) -> float\n" in result.stderr, result.stderr
