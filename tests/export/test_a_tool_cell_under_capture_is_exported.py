"""A Voilà app hides the server's status with ``%%capture`` as the ``%%mcp_tool`` cell's first line
(docs/getting-started/notebook.md, "A Voilà app"). The export kept that cell as a ``%%capture`` cell's body, which
is a cell magic of its own, and dropped it ("IPython only"): the script served nothing from it. Now a
``%%capture [options]`` line above a ``%%mcp_*`` cell magic is read as that component's cell, without the capture;
any other ``%%capture`` cell, and a ``%%mcp_tool`` under another cell magic, is exported as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cell_translation import refusal, translated
from export_roundtrip import SCRIPT_TOKEN, export, run_script
from kernels import run_async
from support import mcp_client

SWEEP = ('%%mcp_tool\nfrom nanohubmcp import Context\n\n\ndef sweep(n: int, ctx: Context) -> int:\n'
         '    """Sweep n points."""\n    for i in range(n):\n        ctx.report_progress(i + 1, n, f"point {i + 1}")\n'
         '    return n')
APP = ("%load_ext nanohubmcp\n%config NanohubMCP.port = 0", "%%capture\n" + SWEEP,
       'r = %mcp call sweep {"n": 5}\nprint("result:", r.text)', "%mcp url")
"""The cells of the Voilà app of the notebook page (and of tests/jupyter/test_a_voila_app_serves_a_kernel_per_page)."""


@pytest.mark.slow
def test_the_voila_apps_script_serves_its_captured_tool(write_notebook: Callable[..., Path], tmp_path: Path) -> None:
    done = export(write_notebook(*APP))
    assert done.returncode == 0, done.stderr
    assert "(1 tool, 0 resources, 0 prompts)" in done.stderr
    with run_script(tmp_path / "start_mcp.py") as url:
        tools, result = run_async(listed_and_called(url))
    assert tools == ["sweep"]
    assert not result.is_error, result
    assert result.content[0].text == "3", result


async def listed_and_called(url: str) -> tuple[list[str], Any]:
    async with mcp_client(url, token=SCRIPT_TOKEN) as session:
        tools = [tool.name for tool in (await session.list_tools()).tools]
        return tools, await session.call_tool("sweep", {"n": 3})


def test_capture_options_and_the_tool_options_are_read() -> None:
    script = translated("%%capture out --no-stderr\n%%mcp_tool --name plus --title Plus\n"
                        'def add(a: int, b: int) -> int:\n    """Add."""\n    return a + b')
    assert script.tools == ("plus",)
    assert script.dropped == ()
    assert ('# %%capture out --no-stderr: the cell\'s tool is served, without the capture\n'
            '@server.tool(name="plus", title="Plus")\ndef add(' in script.text), script.text


def test_a_captured_resource_prompt_and_view_are_served_too() -> None:
    script = translated('%%capture\n%%mcp_resource data://x\ndef x() -> str:\n    """X."""\n    return "x"',
                        '%%capture\n%%mcp_prompt\ndef ask(t: str) -> str:\n    """Ask."""\n    return t',
                        "%%capture\n%%mcp_view ui://chart\n'<p>chart</p>'")
    assert script.resources == ("data://x", "ui://chart")
    assert script.prompts == ("ask",)


def test_the_capture_name_stays_unbound_and_lines_count_the_capture_line() -> None:
    tool = '%%capture out\n%%mcp_tool\ndef t() -> int:\n    """T."""\n    return 1'
    assert refusal(tool, "LOG = out.stdout") == (
        "nb.ipynb, cell 2 (LOG = out.stdout): line 1 uses 'out', which only cell 1 binds, a %%capture cell, whose "
        "capture the script drops: bind 'out' in plain Python, or tag this cell mcp-skip too")
    assert refusal("%%capture\n%%mcp_tool\ndef f(x:\n    pass") == (
        "nb.ipynb, cell 1 (%%capture): syntax error on line 3: '(' was never closed")


def test_other_capture_cells_and_a_tool_under_another_magic_are_exported_as_before() -> None:
    script = translated("%%capture\nimport math\nTAU = 2 * math.pi", SWEEP,
                        '%%time\n%%mcp_tool\ndef t() -> int:\n    """T."""\n    return 1')
    assert "# %%capture: the cell's code runs, without the capture magic\nimport math" in script.text
    assert script.tools == ("sweep",)  # %%time's body is a cell magic of its own: dropped, as before
    assert script.dropped == ("cell 3: get_ipython().run_cell_magic('mcp_tool', '', "
                              "'def t() -> int:\\n \"\"\"T.\"\"\"\\n return 1\\n')",)
