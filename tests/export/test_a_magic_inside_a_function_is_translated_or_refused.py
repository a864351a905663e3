"""trial30 T2: a line magic inside a tool's body (``%env FOO=bar``) was exported as ``pass  # dropped``: the
tool answered ``bar`` in the notebook and raised KeyError('FOO') in the script. ``%env NAME=value`` in a
function now becomes ``os.environ["NAME"] = "value"`` (the tool answers the same in both), and any other
magic or ``!cmd`` in a function's body is refused with one line naming the cell and the line, as IPython
syntax used as a value is; no file is written. (Since trial33 W12 ``%time STATEMENT`` and ``%cd PATH`` are
translated there too: :mod:`nanohubmcp.jupyter.script_magics`.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_roundtrip import SCRIPT_TOKEN, describe, export, live_description, run_script
from kernels import run_async

SETUP = "%load_ext nanohubmcp\n%config NanohubMCP.token = ''\n%config NanohubMCP.name = 'nb'"
TOOL = ('%%mcp_tool\ndef g3(n: int) -> str:\n    """Read FOO."""\n    %env FOO=bar\n'
        '    import os; return os.environ["FOO"] + str(n)')


@pytest.mark.slow
def test_env_in_a_tools_body_sets_the_variable_in_the_script_as_in_the_notebook(
    start_export_kernel: Callable[[], Any], write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook(SETUP, TOOL)
    live = live_description(start_export_kernel, notebook, first="import os\nos.environ.pop('FOO', None)")
    assert live["calls"]["g3"]["content"][0]["text"] == "bar3"

    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "dropped" not in done.stderr
    text = (tmp_path / "start_mcp.py").read_text()
    assert 'os.environ["FOO"] = "bar"  # %env FOO=bar' in text
    with run_script(tmp_path / "start_mcp.py") as url:
        assert run_async(describe(url, token=SCRIPT_TOKEN)) == live


@pytest.mark.parametrize(("line", "shown"), [
    ("%run helper.py", "%run helper.py"),
    ("!ls", "!ls"),
    ("%env FOO=$HOME", "%env FOO=$HOME"),  # IPython expands $HOME: no plain translation
    ("%matplotlib inline", "%matplotlib inline"),
])
def test_any_other_magic_in_a_function_is_refused_naming_the_cell_and_the_line(
    write_notebook: Callable[..., Path], tmp_path: Path, line: str, shown: str
) -> None:
    helper = f"def helper():\n    x = 0\n    {line}\n    return x"
    notebook = write_notebook(SETUP, "%%mcp_tool\ndef f(n: int) -> int:\n    '''F.'''\n    return n", helper)
    done = export(notebook)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"nanohubmcp export: error: {notebook}, cell 3 (def helper():): line 3 runs IPython syntax inside a "
        f"function ({shown}), which a script cannot run: the function would do without it when called; rewrite "
        "it in Python (os.environ[NAME] = VALUE for %env, subprocess.run([...]) for !cmd) or tag the cell mcp-skip")
    assert not (tmp_path / "start_mcp.py").exists()


def test_in_a_tool_cell_the_line_is_counted_from_the_magic_line(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook(SETUP, "%%mcp_tool\ndef f(n: int) -> int:\n    '''F.'''\n    !echo hi\n    return n")
    done = export(notebook)
    assert done.returncode == 1
    assert "cell 2 (%%mcp_tool): line 4 runs IPython syntax inside a function (!echo hi)" in done.stderr


def test_a_magic_at_the_top_level_that_only_shows_is_dropped_with_a_comment(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook(SETUP, "%matplotlib inline",
                              "%%mcp_tool\ndef f(n: int) -> int:\n    '''F.'''\n    return n")
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "dropped (see the comment in the script): cell 2: %matplotlib inline" in done.stderr
