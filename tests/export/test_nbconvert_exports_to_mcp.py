"""``jupyter nbconvert --to mcp``: the entry point finds MCPExporter (after ``pip install -e .``), the
written script registers the notebook's components, and a bad notebook fails without a file."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from export_roundtrip import clean_environment, console_script
from nbconvert.exporters import get_export_names, get_exporter

from nanohubmcp.jupyter.exporter import MCPExporter

pytestmark = pytest.mark.slow

Write = Callable[..., Path]
CELLS = (
    ("markdown", "# Adder"),
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 9001",
    "%%mcp_tool --read-only\ndef add(a: int, b: int) -> int:\n    return a+b\n",
    ("add(1, 2)", ["mcp-skip"]),
    "%%mcp_prompt\ndef ask(topic: str) -> str:\n    return topic\n",
)


def nbconvert(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*console_script("jupyter"), "nbconvert", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env=clean_environment(),
    )


def test_the_entry_point_names_the_exporter() -> None:
    assert "mcp" in get_export_names()
    assert get_exporter("mcp") is MCPExporter
    assert MCPExporter.output_mimetype == "text/x-python"
    assert MCPExporter().file_extension == ".py"


def test_jupyter_nbconvert_to_mcp_writes_a_script(write_notebook: Write, tmp_path: Path) -> None:
    write_notebook(*CELLS, name="adder.ipynb")
    done = nbconvert("--to", "mcp", "adder.ipynb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adder.ipynb", "start_mcp.py"]  # as the docs say
    text = (tmp_path / "start_mcp.py").read_text()
    assert text.startswith('"""Adder\n')
    assert "python start_mcp.py" in text
    assert '@server.tool(annotations={"readOnlyHint": True})\ndef add(' in text
    assert "return a + b" in text  # formatted (ruff is installed in this venv)
    assert "add(1, 2)" not in text
    assert "add_port_option(" in text
    assert "default=9001," in text  # the notebook's port (ruff may put each argument on a line of its own)
    assert "dropped" not in done.stderr  # nothing was dropped but the nanohubmcp lines


def test_output_name_and_format_option(write_notebook: Write, tmp_path: Path) -> None:
    write_notebook(*CELLS, name="adder.ipynb")
    done = nbconvert(
        "--to", "mcp", "adder.ipynb", "--output", "server", "--MCPExporter.format_code=False", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "server.py").read_text()
    assert "return a+b" in text
    assert "start_mcp --app server.py" in text


def test_an_output_name_equal_to_the_notebooks_own_is_kept(write_notebook: Write, tmp_path: Path) -> None:
    """--output adder for adder.ipynb writes adder.py, as asked (it used to write start_mcp.py)."""
    write_notebook(*CELLS, name="adder.ipynb")
    done = nbconvert("--to", "mcp", "adder.ipynb", "--output", "adder", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adder.ipynb", "adder.py"]
    assert "start_mcp --app adder.py" in (tmp_path / "adder.py").read_text()


def test_a_bad_notebook_fails_and_writes_nothing(write_notebook: Write, tmp_path: Path) -> None:
    write_notebook("x = 1", "%%mcp_tool\nawait go()\n", name="bad.ipynb")
    done = nbconvert("--to", "mcp", "bad.ipynb", cwd=tmp_path)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line or "Traceback" in line]
    # trial69 T69-2: nbconvert logged the line again with a 12-line traceback (the page says one line)
    assert len(errors) == 1, done.stderr
    assert "bad.ipynb, cell 2 (%%mcp_tool): top-level await on line 2" in errors[0]
    assert [p.name for p in tmp_path.iterdir()] == ["bad.ipynb"]


def test_the_exporter_reports_what_it_registered(write_notebook: Write) -> None:
    notebook = write_notebook(*CELLS, "%matplotlib inline", name="adder.ipynb")
    text, resources = MCPExporter().from_notebook_node(
        nbformat.read(notebook, as_version=4), resources={"metadata": {"name": "adder", "path": "work"}}
    )
    assert "work/adder.ipynb" in text
    assert resources["mcp"]["tools"] == ["add"]
    assert resources["mcp"]["prompts"] == ["ask"]
    assert resources["mcp"]["resources"] == []
    assert resources["mcp"]["dropped"] == ["cell 6: %matplotlib inline"]
    assert resources["output_extension"] == ".py"
