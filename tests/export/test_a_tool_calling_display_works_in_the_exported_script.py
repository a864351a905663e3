"""trial30 T15: a tool calling ``display(...)`` (which IPython gives every cell) worked in the notebook, but its
exported script had no ``display``: every call failed with "name 'display' is not defined". The script now
imports it (``from IPython.display import display``) when the code it keeps calls it without binding it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_roundtrip import SCRIPT_TOKEN, describe, export, live_description, run_script
from kernels import run_async

from nanohubmcp.jupyter.translate import translate

SETUP = "%load_ext nanohubmcp\n%config NanohubMCP.token = ''\n%config NanohubMCP.name = 'nb'"
TOOL = ('%%mcp_tool\ndef d(n: int) -> int:\n    """Doubles, showing its progress."""\n'
        '    display(f"working on {n}")\n    return n * 2')
IMPORT = "from IPython.display import display  # a notebook builtin the code calls"


@pytest.mark.slow
def test_the_exported_tool_answers_as_the_notebooks_does(
    start_export_kernel: Callable[[], Any], write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook(SETUP, TOOL)
    live = live_description(start_export_kernel, notebook)
    assert live["calls"]["d"]["content"][0]["text"] == "6"

    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert IMPORT in (tmp_path / "start_mcp.py").read_text()
    with run_script(tmp_path / "start_mcp.py") as url:
        assert run_async(describe(url, token=SCRIPT_TOKEN)) == live


def notebook_of(*sources: str) -> dict[str, Any]:
    return {"cells": [{"cell_type": "code", "source": s, "metadata": {}} for s in sources], "metadata": {}}


def test_no_import_when_the_notebook_imports_it_or_only_displays_at_the_top_level() -> None:
    imported = translate(notebook_of("from IPython.display import display", TOOL), format_code=False)
    assert imported.text.count("import display") == 1
    dropped = translate(notebook_of("x = 1\ndisplay(x)", "%%mcp_tool\ndef f(n: int) -> int:\n    '''F.'''\n"
                                    "    return n"), format_code=False)
    assert "import display" not in dropped.text
