"""``nanohubmcp export NOTEBOOK [-o FILE]``: writes start_mcp.py beside the notebook by default, never a
half-finished file, and refuses bad notebooks in one line naming the cell."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import export

from nanohubmcp.cli import main
from nanohubmcp.jupyter.translate import looks_exported

TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    return a + b\n"
Write = Callable[..., Path]

BAD = {
    "syntax error": ("x = 1", "%%mcp_tool\ndef add(a, b:\n    return a"),
    "tool cell without a function": ("x = 1", "%%mcp_tool --name add\nresult = 1 + 2"),
    "top-level await": ("import asyncio", "await asyncio.sleep(0)\nprint('done')"),
}
FIRST_LINES = {
    "syntax error": "nb.ipynb, cell 2 (%%mcp_tool): syntax error on line 2: ",
    "tool cell without a function": "nb.ipynb, cell 2 (%%mcp_tool --name add): the cell defines no function",
    "top-level await": "nb.ipynb, cell 2 (await asyncio.sleep(0)): top-level await on line 1",
}


@pytest.mark.slow
def test_the_console_script_writes_start_mcp_py_next_to_the_notebook(
    write_notebook: Write, tmp_path: Path
) -> None:
    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.name = 'adder'", TOOL, "%mcp status")
    done = export(notebook, cwd=tmp_path.parent)  # another working directory: the notebook's folder wins
    assert done.returncode == 0, done.stderr
    script = tmp_path / "start_mcp.py"
    text = script.read_text()
    assert looks_exported(text)
    assert "@server.tool()\ndef add(" in text
    assert f"Wrote {script} (1 tool, 0 resources, 0 prompts)" in done.stderr
    assert "dropped (see the comment in the script): cell 3: %mcp status" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nb.ipynb", "start_mcp.py"]
    assert script.stat().st_mode & 0o777 == 0o644


def test_output_may_be_a_file_a_directory_or_standard_output(
    write_notebook: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = write_notebook(TOOL)
    assert main(["export", str(notebook), "-o", str(tmp_path / "server.py")]) == 0
    assert "python server.py" in (tmp_path / "server.py").read_text()
    folder = tmp_path / "deploy"
    folder.mkdir()
    assert main(["export", str(notebook), "-o", str(folder)]) == 0
    assert (folder / "start_mcp.py").exists()
    capsys.readouterr()
    assert main(["export", str(notebook), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('"""nb\n')
    assert out.rstrip().endswith("server.run(**_command_line_options())")


def test_no_format_keeps_the_code_as_written(write_notebook: Write, tmp_path: Path) -> None:
    notebook = write_notebook("x=1", TOOL)
    assert main(["export", str(notebook), "--no-format"]) == 0
    assert "\nx=1\n" in (tmp_path / "start_mcp.py").read_text()


def test_a_misspelt_setting_is_refused_with_the_name_it_is_close_to(
    write_notebook: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial66 F5: the kernel warns "Did you mean `port`?"; the export refused without the suggestion.
    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.portt = 9001", TOOL, name="typo.ipynb")
    assert main(["export", str(notebook), "-o", str(tmp_path / "typo_mcp.py")]) == 1
    assert capsys.readouterr().err == (
        f"nanohubmcp export: error: {notebook}, cell 1 (%load_ext nanohubmcp): line 2 %config "
        "NanohubMCP.portt: NanohubMCP has no setting 'portt'; did you mean 'port'?\n"
    )
    assert not (tmp_path / "typo_mcp.py").exists()
    far = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.zzzz = 1", TOOL, name="far.ipynb")
    assert main(["export", str(far), "-o", str(tmp_path / "far_mcp.py")]) == 1
    assert capsys.readouterr().err.endswith("NanohubMCP has no setting 'zzzz'\n")  # nothing close: no guess


def test_an_earlier_export_is_replaced_but_another_file_only_with_force(
    write_notebook: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = write_notebook(TOOL)
    script = tmp_path / "start_mcp.py"
    script.write_text("# my own server\n")
    script.chmod(0o755)
    assert main(["export", str(notebook)]) == 1
    assert capsys.readouterr().err == (
        f"nanohubmcp export: error: {script} exists and is not an earlier export; use --force to replace it\n"
    )
    assert script.read_text() == "# my own server\n"
    assert main(["export", str(notebook), "--force"]) == 0
    assert looks_exported(script.read_text())
    assert script.stat().st_mode & 0o777 == 0o755  # the replaced file's mode is kept
    assert main(["export", str(notebook)]) == 0  # an earlier export: replaced without --force


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_notebook_gives_one_line_and_writes_nothing(
    kind: str, write_notebook: Write, tmp_path: Path
) -> None:
    notebook = write_notebook(*BAD[kind])
    done = export(notebook)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"nanohubmcp export: error: {tmp_path}/{FIRST_LINES[kind]}"), lines[0]
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]  # no script, no temporary file


def test_a_failed_export_leaves_the_earlier_script_untouched(write_notebook: Write, tmp_path: Path) -> None:
    good = write_notebook(TOOL)
    assert main(["export", str(good)]) == 0
    before = (tmp_path / "start_mcp.py").read_text()
    bad = write_notebook(*BAD["top-level await"])
    assert main(["export", str(bad)]) == 1
    assert (tmp_path / "start_mcp.py").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nb.ipynb", "start_mcp.py"]


def test_unreadable_notebooks_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(tmp_path / "missing.ipynb")]) == 1
    assert (
        capsys.readouterr().err == f"nanohubmcp export: error: {tmp_path}/missing.ipynb: no such notebook\n"
    )
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    assert main(["export", str(broken)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"nanohubmcp export: error: {broken}: cannot read it as a notebook (")
    assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.ipynb"]


def test_a_notebook_without_cell_ids_exports_without_warnings(tmp_path: Path) -> None:
    old = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "source": TOOL, "outputs": [], "execution_count": 3}],
    }
    notebook = tmp_path / "old.ipynb"
    notebook.write_text(json.dumps(old))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["export", str(notebook)]) == 0
    assert [str(w.message) for w in caught] == []
    assert "def add(" in (tmp_path / "start_mcp.py").read_text()


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    out = capsys.readouterr().out
    assert "NOTEBOOK" in out
    assert "--output" in out
    assert "start_mcp.py" in out


def test_an_exported_port_0_says_at_start_it_serves_on_any_free_port(write_notebook: Write, tmp_path: Path) -> None:
    import subprocess
    import sys

    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.port = 0", TOOL)
    assert main(["export", str(notebook)]) == 0
    script = tmp_path / "start_mcp.py"
    done = subprocess.run(
        [sys.executable, "-c", "import runpy, sys; sys.argv = ['x', '--host', '127.0.0.1'];"
         f"ns = runpy.run_path({str(script)!r}, run_name='exported'); print(ns['_command_line_options']())"],
        capture_output=True, text=True, timeout=60, check=True,
        env={**os.environ, "MCP_TOKEN": "t0ken", "MCP_TRANSPORT": ""},
    )
    assert "Port 0, as in the notebook (%config NanohubMCP.port = 0)" in done.stderr  # stdout is MCP's over stdio
    assert "--port N or set MCP_PORT" in done.stderr
    assert done.stdout.splitlines() == ["{'host': '127.0.0.1', 'port': 0, 'transport': 'http', 'token': 't0ken'}"]

    fixed = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.port = 9001", TOOL, name="fixed.ipynb")
    assert main(["export", str(fixed), "-o", str(tmp_path / "fixed.py")]) == 0
    assert "Port 0" not in (tmp_path / "fixed.py").read_text()


def test_a_notebook_on_all_interfaces_is_noted_on_the_terminal(
        write_notebook: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trial11 F12: the script binds 127.0.0.1 where the notebook served on 0.0.0.0; the export says so
    where the user looks, not only in a comment of the file."""
    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.host = '0.0.0.0'", TOOL)
    assert main(["export", str(notebook)]) == 0
    assert ("  note: the notebook served on 0.0.0.0 (with its token, which is not exported): the script binds "
            "127.0.0.1 unless run with --host 0.0.0.0; set MCP_TOKEN when you do\n") in capsys.readouterr().err
    quiet = write_notebook("%load_ext nanohubmcp", TOOL, name="quiet.ipynb")
    assert main(["export", str(quiet), "-o", str(tmp_path / "quiet.py")]) == 0
    assert "note:" not in capsys.readouterr().err
