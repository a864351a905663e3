"""Fixtures for the JupyterLab panel tests: a real kernel spoken to over the ``nanohubmcp`` comm."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from comm_kernel import CommKernel, write_kernel_spec


@pytest.fixture(scope="session")
def lab_kernel_specs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding a kernelspec that runs this interpreter (the venv's)."""
    return write_kernel_spec(tmp_path_factory.mktemp("lab-kernels"))


@pytest.fixture
def comm_kernel(lab_kernel_specs: Path, tmp_path: Path) -> Iterator[CommKernel]:
    """A started kernel (empty IPYTHONDIR); nanohubmcp is not loaded yet."""
    ipython_dir = tmp_path / "ipython"
    ipython_dir.mkdir()
    kernel = CommKernel(lab_kernel_specs, ipython_dir)
    try:
        yield kernel
    finally:
        kernel.shutdown()


@pytest.fixture(scope="session")
def wheel_jupyter_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``share/jupyter`` of the nanohub-mcp wheel, pip-installed into a private prefix."""
    from lab_setup import install_wheel

    return install_wheel(tmp_path_factory.mktemp("wheel"))
