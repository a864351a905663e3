"""An export whose script would stop at import, or serve nothing, is refused in one line, and no file is
written:

- a later cell using a name only a dropped cell magic bound: ``%%yaml OUTPUTS`` (simtool's magic), the
  ``NAME`` of ``%%capture NAME`` (its body runs in the script: see
  ``test_magics_that_run_code_or_set_state_are_translated_or_refused``), a script magic's ``--out NAME``.
  The script would stop there with a NameError, as the ``%mcp``-value case already was refused. A name a
  kept cell binds (before the use) is fine.
- a notebook registering nothing (no ``%%mcp_*`` cell, no ``%mcp rappture``/``sim2l`` line): the script
  would serve 0 tools. A Sim2L notebook (``%%yaml INPUTS``/``OUTPUTS`` cells, ``simtool``) is pointed at
  ``nanohubmcp sim2l NOTEBOOK``, which serves it; so is any other refusal of one.

A ``%%writefile`` cell is not turned into code (the script is imported by commands that must not write
files, ``-a`` would append at every start): it is dropped with a note to keep the file with the script.

A fresh-user trial exported the repository's Sim2L example with exit status 0, "0 tools", and a script
that died at import with ``NameError: name 'OUTPUTS' is not defined`` (trial25 F12).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from export_roundtrip import ROOT, clean_environment, console_script, export

from nanohubmcp.cli import main
from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import translate

Write = Callable[..., Path]
TOOL = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
COOLING = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"


def notebook(*sources: str) -> Any:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])


def refusal(*sources: str) -> str:
    with pytest.raises(NanohubMCPError) as caught:
        translate(notebook(*sources), source="nb.ipynb", format_code=False, refuse_empty=True)
    return str(caught.value)


@pytest.mark.parametrize(("dropped", "use", "name"), [
    ("%%yaml CONFIG\nrate: 2", "SPEED = CONFIG['rate']", "CONFIG"),
    ("%%bash --err problems\nls", "print(problems)", "problems"),
    ("%%bash --out listing\nls", "FILES = listing.split()", "listing"),
])
def test_a_name_only_a_dropped_cell_magic_bound_is_refused(dropped: str, use: str, name: str) -> None:
    message = refusal(TOOL, dropped, use)
    magic = dropped.split()[0]
    assert message == (
        f"nb.ipynb, cell 3 ({use}): line 1 uses {name!r}, which only cell 2 binds, a {magic} cell (a cell magic, "
        f"IPython only) that the script leaves out: bind {name!r} in plain Python in a cell the script keeps, or "
        "tag this cell mcp-skip too")


def test_a_tool_using_such_a_name_is_refused_too() -> None:
    message = refusal("%%yaml LIMITS\nmax: 3", '%%mcp_tool\ndef clip(x: float) -> float:\n    """Clip."""\n'
                      "    return min(x, LIMITS['max'])")
    assert "cell 2 (%%mcp_tool): line 4 uses 'LIMITS', which only cell 1 binds, a %%yaml cell" in message


@pytest.mark.parametrize("cells", [
    ("%%yaml CONFIG\nrate: 2", "CONFIG = {'rate': 2}", "SPEED = CONFIG['rate']"),  # bound again in plain Python
    ("x = 3", "%%R -i x\nsummary(x)", "print(x)"),  # an unknown magic's word naming a value kept code bound
    ("%%html\n<b>out</b>", "out = 1", "print(out)"),
])
def test_a_name_kept_code_binds_is_not_refused(cells: tuple[str, ...]) -> None:
    script = translate(notebook(TOOL, *cells), source="nb.ipynb", format_code=False, refuse_empty=True)
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": "start_mcp.py"}  # beside its notebook
    exec(compile(script.text, "start_mcp.py", "exec"), namespace)  # imports: no NameError


def test_writefile_is_dropped_with_a_note_to_keep_the_file(tmp_path: Path) -> None:
    script = translate(notebook(TOOL, '%%writefile consts.json\n{"g": 9.81}', "import json"),
                       source="nb.ipynb", format_code=False)
    note = "cell 2: %%writefile consts.json (the script does not write the file: keep it with the script)"
    assert script.dropped == (note,)
    assert "# dropped a cell (IPython only): %%writefile consts.json (the script does not write the file" in script.text
    assert "9.81" not in script.text


def test_a_notebook_serving_nothing_is_refused_and_no_file_is_written(write_notebook: Write, tmp_path: Path) -> None:
    path = write_notebook("import math", "def area(r):\n    return math.pi * r * r", "print(area(2))")
    done = export(path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"nanohubmcp export: error: {path}: nothing to serve: no %%mcp_tool, %%mcp_resource, %%mcp_prompt or "
        "%%mcp_view cell and no %mcp rappture or %mcp sim2l line, so the script would serve 0 tools, 0 resources "
        "and 0 prompts; start the cell of each function to serve with %%mcp_tool"]
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]
    # An %mcp sim2l line serves a tool: not empty.
    assert main(["export", str(write_notebook("%load_ext nanohubmcp\n%mcp sim2l cooling.ipynb", name="s.ipynb"))]) == 0


def test_a_sim2l_notebook_is_pointed_at_nanohubmcp_sim2l(tmp_path: Path) -> None:
    sim2l = tmp_path / "cooling.ipynb"
    shutil.copy(COOLING, sim2l)
    done = export(sim2l)
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert "uses 'OUTPUTS', which only cell 6 binds, a %%yaml cell" in line
    assert line.endswith("; the notebook looks like a Sim2L (%%yaml INPUTS/OUTPUTS cells, simtool): serve it as "
                         f"one tool with `nanohubmcp sim2l {sim2l}` instead")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cooling.ipynb"]

    # With only its declarations (nothing using them), it serves nothing: the same pointer.
    declarations = notebook("from simtool import DB", "%%yaml INPUTS\nx: {type: Number, value: 1}",
                            "%%yaml OUTPUTS\ny: {type: Number}")
    with pytest.raises(NanohubMCPError, match=r"nothing to serve: .* and 0 prompts; the notebook looks like a "
                                              r"Sim2L .*`nanohubmcp sim2l decl.ipynb` instead$"):
        translate(declarations, source="decl.ipynb", format_code=False, refuse_empty=True)


@pytest.mark.slow
def test_nbconvert_refuses_them_too(tmp_path: Path) -> None:
    shutil.copy(COOLING, tmp_path / "cooling.ipynb")
    done = subprocess.run([*console_script("jupyter"), "nbconvert", "--to", "mcp", "cooling.ipynb"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False, env=clean_environment())
    assert done.returncode != 0
    assert "`nanohubmcp sim2l cooling.ipynb` instead" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cooling.ipynb"]


@pytest.mark.parametrize("cell", [
    '%%mcp_tool\ndef get_job_result(job_id: str) -> str:\n    """Mine."""\n    return job_id\n',
    '%%mcp_tool --name get_job_result\ndef mine(job_id: str) -> str:\n    """Mine."""\n    return job_id\n',
])
def test_a_tool_with_the_servers_reserved_name_is_refused(write_notebook: Write, tmp_path: Path, cell: str) -> None:
    # The script would stop at import with a traceback, where registration refuses the name (trial26 F17).
    path = write_notebook(TOOL, cell)
    done = export(path, "-o", str(tmp_path / "out.py"))
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    first = cell.splitlines()[0]
    assert line == (f"nanohubmcp export: error: {path}, cell 2 ({first}): tool 'get_job_result': the name is "
                    "reserved by the server, which answers it to poll the jobs of @async_tool tools; choose another "
                    "name, e.g. name='my_job_result'")
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]


def test_an_export_into_a_fifo_does_not_say_to_run_it(write_notebook: Write, tmp_path: Path) -> None:
    # `-o /dev/null --force` said "Run it: python /dev/null" (trial26 F9); a FIFO is the same kind of output.
    path = write_notebook(TOOL)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text()), daemon=True)
    reader.start()
    done = export(path, "-o", str(fifo), "--force")
    reader.join(30)
    assert done.returncode == 0, done.stderr
    assert "def add" in read[0]
    assert done.stderr.splitlines()[0] == f"Wrote {fifo} (1 tool, 0 resources, 0 prompts)."
    # A regular file is still offered to run.
    done = export(path, "-o", str(tmp_path / "app.py"))
    assert "Run it" in done.stderr
    assert f"python {tmp_path / 'app.py'}" in done.stderr
