"""trial35 Y3: ``%env B x=y`` was exported as ``os.environ["B"] = "x=y"``, though IPython refuses the line (it
splits at the '=', and the name ``"B x"`` has whitespace): the script set a variable the notebook never had.
``%env =x`` (an empty name, which IPython fails to set) was dropped as "it only shows the environment".

Each ``%env`` / ``%set_env`` line here runs in a real IPython shell and through the export: the script sets
what IPython sets, and the export refuses, naming the cell and the line, each line IPython refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate

TOOL = '%%mcp_tool\ndef mode() -> str:\n    """The mode."""\n    return "fast"'
SETS = ["%env A=b", "%env A = b", "%env A=b=c", "%env A=", "%env A b", "%env A  b c", "%env 1A x", "%env MY-VAR=1",
        "%env  A=b", "%set_env A=b", "%set_env A b"]
REFUSED = ["%env B x=y", "%env A b=c", "%env =x", "%env  B", "%env  A b", "%env A\tb c", "%set_env A", "%set_env",
           "%set_env =x", "%env A=b\x00c"]
SHOWS = ["%env", "%env HOME"]
NAMES = ("A", "B", "1A", "MY-VAR", "B x", "A\tb")

# Runs each cell in IPython, then the statements its script has for it, each from the same environment; writes
# what each run changed in os.environ, and whether IPython ran the cell without an error.
RUN_BOTH = """
import json, os, sys
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
def changes(run):
    before = dict(os.environ)
    ok = run()
    changed = {k: v for k, v in os.environ.items() if before.get(k) != v}
    os.environ.clear()
    os.environ.update(before)
    return {"ok": ok, "set": changed}
cells = json.loads(sys.stdin.read())
results = [[changes(lambda: shell.run_cell(cell).success), changes(lambda: exec(code, {}) or True)]
           for cell, code in cells]
open(sys.argv[1], "w").write(json.dumps(results))
"""


def export(cell: str) -> Script:
    made = nbformat.v4.new_notebook()
    made.cells = [nbformat.v4.new_code_cell(cell), nbformat.v4.new_code_cell(TOOL)]
    return translate(made, source="nb.ipynb", format_code=False, refuse_empty=True)


def refusal(cell: str) -> str:
    with pytest.raises(NanohubMCPError) as caught:
        export(cell)
    return str(caught.value)


def exported_code(cell: str) -> str | None:
    """The script's statements for the cell; None when the export refuses it."""
    try:
        script = export(cell)
    except NanohubMCPError:
        return None
    return "\n".join(line for line in script.text.splitlines() if "os.environ[" in line)


def ipython_and_script(cells: list[str], tmp_path: Path) -> list[list[dict[str, Any]]]:
    environment = {k: v for k, v in os.environ.items() if k not in NAMES}
    codes = [(cell, exported_code(cell) or "") for cell in cells]
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, "-c", RUN_BOTH, str(out)], input=json.dumps(codes), text=True, env=environment,
                   capture_output=True, timeout=120, check=True)
    return json.loads(out.read_text())


def test_the_script_sets_what_ipython_sets_and_the_export_refuses_what_ipython_refuses(tmp_path: Path) -> None:
    cells = SETS + REFUSED + SHOWS
    for cell, (ipython, script) in zip(cells, ipython_and_script(cells, tmp_path), strict=True):
        if exported_code(cell) is None:
            assert not ipython["ok"], cell
            assert cell in REFUSED
        else:
            assert ipython["ok"], cell
            assert script["set"] == ipython["set"], cell
            assert bool(ipython["set"]) == (cell in SETS), cell


@pytest.mark.parametrize(("cell", "why"), [
    ("%env B x=y", "it splits 'B x=y' at its first '=', and the name 'B x' has whitespace"),
    ("%env =x", "it splits '=x' at its first '=', and the name is empty"),
    ("import os\n%env  B", "it splits ' B' at its first ' ', and the name is empty"),  # the 2nd space is the line's
    ("%set_env A", "it needs a name and a value: %set_env NAME=VALUE"),
])
def test_a_line_ipython_refuses_is_refused_naming_the_cell_the_line_and_why(cell: str, why: str) -> None:
    first, line, what = cell.splitlines()[0], len(cell.splitlines()), " ".join(cell.splitlines()[-1].split())
    assert refusal(cell) == (
        f"nb.ipynb, cell 1 ({first}): line {line} sets an environment variable that IPython refuses to set ({what}: "
        f"{why}), so the notebook's cell stopped at it: fix the line (or write os.environ[NAME] = VALUE in Python), "
        "or tag the cell mcp-skip")


def test_env_with_an_empty_name_is_not_dropped_as_showing_the_environment() -> None:
    with pytest.raises(NanohubMCPError, match="the name is empty"):
        export("%env =x")
    assert export("%env").dropped == ("cell 1: %env (it only shows the environment)",)
