"""Fixtures for the Jupyter tests: a real kernel per test, from a kernelspec running this interpreter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel, started_kernels, write_kernel_spec


@pytest.fixture(scope="session")
def kernel_specs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the ``nanohubmcp-test`` kernelspec (the venv's own python)."""
    return write_kernel_spec(tmp_path_factory.mktemp("kernels"))


@pytest.fixture
def ipython_dir(tmp_path: Path) -> Path:
    """An empty IPYTHONDIR, so the user's profile never leaks into a test kernel."""
    path = tmp_path / "ipython"
    path.mkdir()
    return path


@pytest.fixture
def start_kernel(kernel_specs: Path, ipython_dir: Path) -> Iterator[Any]:
    """``start_kernel(**env)`` -> a :class:`LiveKernel`; every kernel is shut down afterwards."""
    with started_kernels(kernel_specs, ipython_dir) as start:
        yield start


@pytest.fixture
def kernel(start_kernel: Any) -> LiveKernel:
    """A started kernel with ``%load_ext nanohubmcp`` done and the port set to 0 (any free port)."""
    live: LiveKernel = start_kernel()
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    return live
