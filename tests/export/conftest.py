"""Fixtures of the export tests: real kernels (through the tests/jupyter harness) and notebook files.

The kernel harness lives in ``tests/jupyter/kernels.py``; its directory is put on ``sys.path``
here so ``from kernels import ...`` works when this folder runs on its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "jupyter"))

from kernels import LiveKernel, started_kernels, write_kernel_spec


@pytest.fixture(scope="session")
def export_kernel_specs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``nanohubmcp-test`` kernelspec (this venv's python)."""
    return write_kernel_spec(tmp_path_factory.mktemp("export-kernels"))


@pytest.fixture(scope="session")
def start_export_kernel(
    export_kernel_specs: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], LiveKernel]]:
    """``start()`` -> a LiveKernel (empty profile, NanohubMCP port 0); all are shut down at the end."""
    ipython_dir = tmp_path_factory.mktemp("export-ipython")
    profile = ipython_dir / "profile_default"
    profile.mkdir()
    (profile / "ipython_kernel_config.py").write_text("c.NanohubMCP.port = 0\n", encoding="utf-8")
    # Each in a folder of its own: what a notebook writes (notebooks/nanohub_tools.ipynb writes its tools) stays
    # out of the checkout.
    with started_kernels(export_kernel_specs, ipython_dir, lambda: tmp_path_factory.mktemp("export-kernel")) as start:
        yield start


@pytest.fixture
def write_notebook(tmp_path: Path) -> Callable[..., Path]:
    """``write_notebook(cell, ..., name="nb.ipynb")``: a notebook in tmp_path from cell sources.

    A cell is a source string (a code cell), ``("markdown", text)``, or ``(text, ["tag", ...])``
    for a tagged code cell.
    """

    def write(*cells: Any, name: str = "nb.ipynb") -> Path:
        notebook = nbformat.v4.new_notebook()
        for cell in cells:
            if isinstance(cell, tuple) and cell[0] == "markdown":
                notebook.cells.append(nbformat.v4.new_markdown_cell(cell[1]))
            elif isinstance(cell, tuple):
                notebook.cells.append(nbformat.v4.new_code_cell(cell[0], metadata={"tags": cell[1]}))
            else:
                notebook.cells.append(nbformat.v4.new_code_cell(cell))
        path = tmp_path / name
        nbformat.write(notebook, path)
        return path

    return write
