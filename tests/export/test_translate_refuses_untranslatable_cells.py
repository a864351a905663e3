"""translate() refuses what a script cannot run, in one line naming the cell (number from 1, markdown
included, and its first line): syntax errors, top-level await, component cells without a usable
function or with bad options, IPython syntax used as a value, %config values it cannot carry over,
and cells that take the name ``server``."""

from __future__ import annotations

import nbformat
import pytest

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import translate


def refusal(*sources: str) -> str:
    made = nbformat.v4.new_notebook()
    made.cells.append(nbformat.v4.new_markdown_cell("# Title"))
    made.cells.extend(nbformat.v4.new_code_cell(source) for source in sources)
    with pytest.raises(NanohubMCPError) as caught:
        translate(made, source="bad.ipynb", format_code=False)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = (1,\n", "bad.ipynb, cell 3 (x = (1,): syntax error on line 1: "),
        ("%%mcp_tool\n\ndef f(:\n    pass", "bad.ipynb, cell 3 (%%mcp_tool): syntax error on line 3: "),
        (
            "import asyncio\nawait asyncio.sleep(0)",
            "bad.ipynb, cell 3 (import asyncio): top-level await on line 2 cannot run in a script; "
            "move it into an async def (a tool may be async) or call asyncio.run(...)",
        ),
        ("async with lock:\n    pass", "bad.ipynb, cell 3 (async with lock:): top-level await on line 1"),
        (
            "%%mcp_tool\nawait go()\ndef f():\n    pass",
            "bad.ipynb, cell 3 (%%mcp_tool): top-level await on line 2",
        ),
        (
            "%%mcp_tool --name go\nx = 1",
            "bad.ipynb, cell 3 (%%mcp_tool --name go): the cell defines no function; "
            "write `def my_tool(...):` at the top level of the cell",
        ),
        (
            "%%mcp_prompt\ndef a():\n    pass\ndef b():\n    pass",
            "bad.ipynb, cell 3 (%%mcp_prompt): the cell defines several functions (a, b); "
            "pick the one to serve with --name (--name a), or start the helpers' names with '_'",
        ),
        (
            "%%mcp_tool --colour red\ndef f():\n    pass",
            "bad.ipynb, cell 3 (%%mcp_tool --colour red): unrecognized",
        ),
        (
            "%%mcp_resource\ndef f():\n    pass",
            "bad.ipynb, cell 3 (%%mcp_resource): the following arguments are",
        ),
        ("files = !ls\nprint(files)", "bad.ipynb, cell 3 (files = !ls): line 1 uses IPython syntax"),
        ("ip = get_ipython()", "bad.ipynb, cell 3 (ip = get_ipython()): line 1 uses IPython syntax"),
        (
            "%config NanohubMCP.port = PORT",
            "bad.ipynb, cell 3 (%config NanohubMCP.port = PORT): "
            "line 1 %config NanohubMCP.port: the value must be a literal",
        ),
        ("%config NanohubMCP.prot = 1", "NanohubMCP has no setting 'prot'"),
        ("%config NanohubMCP.port = 70000", "NanohubMCP.port must be between 0 and 65535"),
        (
            "from nanohubmcp import MCPServer\nserver = MCPServer('mine')",
            "bad.ipynb, cell 3 (from nanohubmcp import MCPServer): line 2 binds the name 'server', which the "
            "exported script uses for its own MCPServer; rename it or tag the cell mcp-skip",
        ),
        # Regression (fresh-user trial): under another name, a server built in code was exported
        # "successfully" with 0 tools, and its run() blocked the script's own server.
        (
            "from nanohubmcp import MCPServer\nsrv = MCPServer('mine')\nsrv.run(port=8741)",
            "bad.ipynb, cell 3 (from nanohubmcp import MCPServer): line 2 builds an MCPServer of its own",
        ),
        ("import nanohubmcp\nsrv = nanohubmcp.MCPServer('mine')", "line 2 builds an MCPServer of its own"),
        ("def _command_line_options():\n    pass", "binds the name '_command_line_options'"),
        ("x = 1; get_ipython().system('ls')", "line 1 mixes IPython-only code with other statements"),
    ],
)
def test_the_error_is_one_line_naming_the_cell(source: str, expected: str) -> None:
    message = refusal("x = 1", source)
    assert message.startswith(expected) if expected.startswith("bad.ipynb") else expected in message, message


def test_a_long_first_line_is_shortened() -> None:
    message = refusal("value = " + "1 + " * 40 + "(")
    assert message.startswith("bad.ipynb, cell 2 (value = 1 + 1 + 1 + ")
    assert "...): syntax error" in message


def test_a_non_python_notebook_is_refused() -> None:
    made = nbformat.v4.new_notebook()
    made.metadata["language_info"] = {"name": "R"}
    with pytest.raises(
        NanohubMCPError, match=r"^x.ipynb: the notebook's language is R; only Python exports$"
    ):
        translate(made, source="x.ipynb")


def test_a_bad_cell_tagged_mcp_skip_is_left_out_instead() -> None:
    made = nbformat.v4.new_notebook()
    made.cells.append(nbformat.v4.new_code_cell("await asyncio.sleep(1)", metadata={"tags": ["mcp-skip"]}))
    assert "asyncio" not in translate(made, source="x.ipynb", format_code=False).text
