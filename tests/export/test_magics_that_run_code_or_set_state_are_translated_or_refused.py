"""trial33 W12: a top-level ``%env MODE=fast`` (or one in an ``if`` block) and a top-level ``%time X = 5``
were dropped, so the script's tools saw another environment, failed with NameError, or the script stopped at
import (KeyError). Each magic now has one documented handling (:mod:`nanohubmcp.jupyter.script_magics`):
translated to what IPython runs, dropped with a comment when it only shows or times, refused naming the cell
and the line when it binds names or sets state a script cannot reproduce.

trial33 W16: ``%config NanohubMCP.max_request_bytes = 40*2**20``, which the kernel takes, was refused as not a
literal: arithmetic of numbers is computed (nothing else runs).

trial35 Y4: ``2**2**2**2**2``, ``9**9**9`` and ``1/0`` were refused as not "arithmetic of numbers", which they
are: the refusal now says they divide by zero or are too large to evaluate (``((10**1000)**1000)**1000``, whose
exponents are each small, no longer runs for minutes). Y19: a later use of ``%%capture NAME``'s NAME was refused
as a name of a cell "the script leaves out"; the script keeps that cell's code and drops only the capture."""

from __future__ import annotations

import os
from typing import Any

import pytest
from cell_translation import refusal, translated

from nanohubmcp.jupyter.translate import Script

TOOL = '%%mcp_tool\ndef mode() -> str:\n    """The mode."""\n    import os\n    return os.environ.get("MODE", "unset")'


def run(script: Script) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": "start_mcp.py"}  # beside its notebook
    exec(compile(script.text, "start_mcp.py", "exec"), namespace)
    return namespace


@pytest.fixture(autouse=True)
def _no_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MODE", raising=False)  # the scripts set it; the test's environment is restored


@pytest.mark.parametrize("cell", [
    "import os\n%env MODE=fast",
    "%set_env MODE fast",
    "import os\nif True:\n    %env MODE=fast\nprint(os.environ['MODE'])",  # read at import: was a KeyError
])
def test_env_at_a_cells_top_level_or_in_a_block_sets_the_variable(cell: str) -> None:
    script = translated(cell, TOOL)
    assert 'os.environ["MODE"] = "fast"' in script.text
    assert not script.dropped
    assert run(script)["mode"]() == "fast"


def test_env_that_only_shows_is_dropped_and_one_expanding_names_is_refused() -> None:
    assert translated("%env", "%env HOME", TOOL).dropped == (
        "cell 1: %env (it only shows the environment)", "cell 2: %env HOME (it only shows the environment)")
    assert refusal("x = 'fast'\n%env MODE=$x", TOOL) == (
        "nb.ipynb, cell 1 (x = 'fast'): line 2 sets an environment variable from notebook names (%env MODE=$x), "
        "which the export does not expand: write os.environ[NAME] = VALUE in Python")


def test_time_runs_its_statement_at_the_top_level_in_a_block_and_in_a_function() -> None:
    script = translated("%time X = 5", "for i in range(3):\n    %time last = i",
                        "def twice():\n    %time y = 2 * X\n    return y",
                        '%%mcp_tool\ndef x() -> int:\n    """X."""\n    return X + last + twice()')
    assert "X = 5  # %time X = 5 (run without the timing)" in script.text
    assert not script.dropped
    assert run(script)["x"]() == 5 + 2 + 10


def test_time_cells_and_capture_cells_run_their_code() -> None:
    script = translated("%%time\nTABLE = [i * i for i in range(4)]",
                        "%%capture --no-stderr\nimport math\nTAU = 2 * math.pi",
                        '%%mcp_tool\ndef t() -> float:\n    """T."""\n    return TABLE[3] + TAU')
    assert "# %%time: the cell's code runs, without the time magic\nTABLE = " in script.text
    assert run(script)["t"]() == 9 + 2 * 3.141592653589793


def test_the_name_a_capture_cell_binds_is_still_refused_saying_only_the_capture_is_dropped() -> None:
    assert refusal("%%capture out\nprint('hi')", "LOG = out.stdout", TOOL) == (
        "nb.ipynb, cell 2 (LOG = out.stdout): line 1 uses 'out', which only cell 1 binds, a %%capture cell, whose "
        "capture the script drops: bind 'out' in plain Python, or tag this cell mcp-skip too")


def test_timeit_is_dropped_with_why() -> None:
    script = translated("%timeit sum(range(10))", "%%timeit\nsum(range(10))", TOOL)
    assert "# dropped (IPython runs it many times inside a function of its own: it binds nothing): " \
           "%timeit sum(range(10))" in script.text
    assert script.dropped[1] == "cell 2: %%timeit"


def test_cd_changes_the_working_folder(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    script = translated("%cd data", TOOL)
    assert 'os.chdir(os.path.expanduser("data"))  # %cd data' in script.text
    run(script)
    assert os.getcwd() == str(tmp_path / "data")


@pytest.mark.parametrize(("cell", "reason"), [
    ("%run helpers.py", "line 1 runs a file in the notebook's namespace (%run helpers.py), which the export does not "
     "translate: import what the cells need from it in Python, or tag the cell mcp-skip"),
    ("%store -r table", "line 1 restores names from IPython's store (%store -r table), which a script cannot read: "
     "load them in Python (json, pickle, a file), or tag the cell mcp-skip"),
    ("if True:\n    %cd -b work", "line 2 changes the working folder in a way the export does not translate "
     "(%cd -b work: options, bookmarks, history or $names): write os.chdir(PATH) in Python"),
    ("%time files = !ls", "line 1 times IPython syntax (%time files = !ls), which a script cannot run: rewrite the "
     "statement in Python, or tag the cell mcp-skip"),
])
def test_magics_that_bind_names_or_set_state_the_export_cannot_translate_are_refused(cell: str, reason: str) -> None:
    first = cell.splitlines()[0]
    assert refusal(cell, TOOL) == f"nb.ipynb, cell 1 ({first}): {reason}"


@pytest.mark.parametrize(("value", "written"), [("40*2**20", 41943040), ("64 * 1024 * 1024", 67108864),
                                                 ("-(-2) ** 25", 33554432), ("1e8 // 1", 100000000)])
def test_config_takes_arithmetic_of_numbers_as_the_kernel_does(value: str, written: int) -> None:
    script = translated(f"%load_ext nanohubmcp\n%config NanohubMCP.max_request_bytes = {value}", TOOL)
    assert f"max_request_bytes={written}" in script.text


@pytest.mark.parametrize("value", ["LIMIT * 2", "'a' * 3", "len('abc')", "True + 1"])
def test_config_refuses_other_expressions(value: str) -> None:
    assert refusal(f"%config NanohubMCP.max_request_bytes = {value}", TOOL).endswith(
        "line 1 %config NanohubMCP.max_request_bytes: the value must be a literal (a number, string, list or None) "
        "or arithmetic of numbers (40 * 2**20) to be exported")


PAST = ("is too large to evaluate safely (past 2**1024 in arithmetic; a power of two numbers, 10**400, is exported "
        "as written)")


@pytest.mark.parametrize(("value", "why"), [
    ("2**2**2**2**2", PAST),
    ("9**9**9", PAST),
    ("((10**1000)**1000)**1000", PAST),
    ("2.0 ** 1024", PAST),
    ("1 / 0", "divides by zero (so the kernel refuses it too)"),
    ("2 ** 20 % 0", "divides by zero (so the kernel refuses it too)"),
])
def test_config_arithmetic_that_cannot_be_computed_is_refused_saying_why(value: str, why: str) -> None:
    assert refusal(f"%config NanohubMCP.max_request_bytes = {value}", TOOL).endswith(
        f"line 1 %config NanohubMCP.max_request_bytes: the value {why}")
