"""trial30 T1: ``%mcp remove NAME`` was dropped by the export ("dropped (see the comment in the script)"), so
the script served the tool the notebook had removed on purpose (a debug tool), and its summary counted it.
Now the earlier cell registering NAME is kept undecorated, as for a tool registered again in a later cell:
the script serves what the notebook's server serves after "Run all", and the summary counts that."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_roundtrip import SCRIPT_TOKEN, describe, export, live_description, run_script
from kernels import run_async

from nanohubmcp.jupyter.translate import translate

CELLS = (
    "%load_ext nanohubmcp\n%config NanohubMCP.token = ''\n%config NanohubMCP.name = 'nb'",
    "%%mcp_tool\ndef g4(x: int) -> int:\n    '''Add four.'''\n    return helper(x)",
    "def helper(x):\n    return x + 4",
    "%%mcp_tool\ndef del_me(x: int) -> int:\n    '''A debug tool.'''\n    return x",
    "%%mcp_prompt\ndef ask(topic: str) -> str:\n    '''Ask about a topic.'''\n    return f'Tell me about {topic}'",
    "%mcp remove del_me\n%mcp remove ask",
)


@pytest.mark.slow
def test_the_script_serves_what_the_notebook_serves_after_a_removal(
    start_export_kernel: Callable[[], Any], write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook(*CELLS)
    live = live_description(start_export_kernel, notebook)
    assert list(live["tools"]) == ["g4"]
    assert live["prompts"] == {}

    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "(1 tool, 0 resources, 0 prompts)" in done.stderr
    assert "remove" not in done.stderr  # applied, not dropped
    with run_script(tmp_path / "start_mcp.py") as url:
        assert run_async(describe(url, token=SCRIPT_TOKEN)) == live


def notebook_of(*sources: str) -> dict[str, Any]:
    return {"cells": [{"cell_type": "code", "source": s, "metadata": {}} for s in sources], "metadata": {}}


def test_the_removed_tools_cell_stays_as_a_plain_function() -> None:
    script = translate(notebook_of(*CELLS), format_code=False)
    assert script.tools == ("g4",)
    assert script.prompts == ()
    assert "# (tool 'del_me' is removed in cell 6: %mcp remove del_me)\ndef del_me(x: int) -> int:" in script.text
    assert "# (prompt 'ask' is removed in cell 6: %mcp remove ask)\ndef ask(topic: str) -> str:" in script.text
    assert ("# %mcp remove del_me: applied, the tool's cell above is left undecorated (not served)"
            in script.text)
    assert script.dropped == ()


def test_a_tool_registered_again_after_its_removal_is_served_from_the_later_cell() -> None:
    script = translate(notebook_of(
        "%%mcp_tool\ndef t(x: int) -> int:\n    '''One.'''\n    return 1",
        "%mcp remove t",
        "%%mcp_tool\ndef t(x: int) -> int:\n    '''Two.'''\n    return 2",
    ), format_code=False)
    assert script.tools == ("t",)
    assert script.text.count("@server.tool()") == 1
    assert "@server.tool()\ndef t(x: int) -> int:\n    '''Two.'''" in script.text


def test_a_view_or_a_tool_of_another_format_is_removed_in_code_and_an_unknown_name_is_dropped() -> None:
    view = translate(notebook_of(
        "%%mcp_tool\ndef t(x: int) -> int:\n    '''One.'''\n    return 1",
        "%%mcp_view ui://chart\n'<p>chart</p>'",
        "%mcp remove ui://chart",
        "%mcp remove nothing_here",
    ), format_code=False)
    assert view.resources == ()
    assert 'server.remove_resource("ui://chart")  # %mcp remove ui://chart' in view.text
    assert view.dropped == ("cell 4: %mcp remove nothing_here (no earlier cell registers 'nothing_here')",)
    rappture = translate(notebook_of("%mcp rappture tools/fermi/tool.xml", "%mcp remove fermi"), format_code=False)
    assert 'server.remove_tool("fermi")  # %mcp remove fermi' in rappture.text


@pytest.mark.parametrize("block", [
    "if False:\n    %mcp remove t",
    "for name in ['t']:\n    %mcp remove t",
    "try:\n    %config NanohubMCP.name = 'other'\nexcept Exception:\n    pass",
])
def test_a_removal_or_setting_inside_a_block_is_refused_naming_the_line(block: str) -> None:
    # trial32 V2: `if False:\n    %mcp remove h` was applied, so the script lacked a tool the notebook serves.
    from nanohubmcp import NanohubMCPError

    with pytest.raises(NanohubMCPError, match=r"cell 2 .*line 2 runs %.* inside a block \(if, for, with, try\)"):
        translate(notebook_of("%%mcp_tool\ndef t(x: int) -> int:\n    '''One.'''\n    return 1", block),
                  format_code=False)
