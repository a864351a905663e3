"""A notebook that checks its own tools through its running server (``r = %mcp call ...`` then an
``assert``, the headless check of docs/getting-started/notebook.md) exports: a cell reading the
notebook's server (``%mcp ...`` used as a value) is left out whole, named in the dropped list and
by a comment in the script. A later cell using a name only such a cell bound is refused, saying
which cell and what to change.

A fresh-user trial (trial12 LOW-8) wrote the page's check notebook, then exported it as the same
page says: ``nanohubmcp export`` refused it ("line 1 uses IPython syntax ... as a value"), though the
script needs nothing of a check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from nanohubmcp.cli import main
from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import translate

CHECKS = [  # the cells of docs/getting-started/notebook.md's check_tools.ipynb
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
    '%%mcp_tool\ndef add(a: float, b: float) -> float:\n    """Add two numbers."""\n    return a + b',
    'r = %mcp call add {"a": 2, "b": 3}\nassert r.text == "5.0", r.text',
]


def notebook(*sources: str) -> Any:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])


def test_the_check_notebook_exports_its_tools_and_leaves_its_checks_out(tmp_path: Path) -> None:
    script = translate(notebook(*CHECKS), source="check_tools.ipynb", format_code=False)
    assert script.tools == ("add",)
    assert "assert r.text" not in script.text
    assert "%mcp call add" in script.text  # named in the comment that replaces the cell
    assert [line for line in script.dropped if line.startswith("cell 3:")] == [
        'cell 3: r = %mcp call add {"a": 2, "b": 3} (the cell reads the notebook\'s running server: '
        "a check, left out)"
    ]
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": "start_mcp.py"}  # beside its notebook
    exec(compile(script.text, "start_mcp.py", "exec"), namespace)  # imports without running the check
    assert namespace["server"].core.registry.tools.get("add").description == "Add two numbers."

    path = tmp_path / "check_tools.ipynb"
    nbformat.write(notebook(*CHECKS), str(path))
    assert main(["export", str(path), "-o", str(tmp_path / "server.py")]) == 0
    assert "@server.tool()" in (tmp_path / "server.py").read_text()


@pytest.mark.parametrize("value", ["url = %mcp url", "tools = %mcp call add {}\nprint(tools)"])
def test_any_mcp_line_magic_used_as_a_value_leaves_its_cell_out(value: str) -> None:
    script = translate(notebook(CHECKS[1], value, "x = 1"), source="nb.ipynb", format_code=False)
    assert script.tools == ("add",)
    assert "x = 1" in script.text
    assert [line.split(" (")[0] for line in script.dropped] == [f"cell 2: {value.splitlines()[0]}"]


def test_a_later_cell_using_what_a_left_out_cell_bound_is_refused_saying_what_to_change() -> None:
    with pytest.raises(NanohubMCPError) as caught:
        translate(notebook(CHECKS[1], 'answer = %mcp call add {"a": 1, "b": 2}', "EXPECTED = answer.text"),
                  source="nb.ipynb", format_code=False)
    assert str(caught.value) == (
        "nb.ipynb, cell 3 (EXPECTED = answer.text): line 1 uses 'answer', which only cell 2 binds, a cell "
        "reading the notebook's running server (%mcp as a value) that the script leaves out: bind 'answer' "
        "in plain Python in a cell the script keeps, or tag this cell mcp-skip too"
    )


def test_other_ipython_values_are_still_refused() -> None:
    with pytest.raises(NanohubMCPError, match=r"cell 2 \(files = !ls\): line 1 uses IPython syntax"):
        translate(notebook(CHECKS[1], "files = !ls"), source="nb.ipynb", format_code=False)
