"""Round trip: every notebook in ``notebooks/``, exported, serves exactly what it serves live in a kernel.

For each notebook the test runs all its cells in a real kernel and describes the kernel's server
with the official ``mcp`` client (initialize result, tools, resources, templates and prompts with
their names, schemas and descriptions, one call of every tool, one read of every resource, one
get of every prompt). Then it exports the notebook with ``nanohubmcp export``, runs the script
with plain ``python`` and with ``start_mcp --app``, describes it the same way, and asserts the
two descriptions are equal.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_roundtrip import (
    NOTEBOOKS,
    SCRIPT_TOKEN,
    describe,
    export,
    free_port,
    run_script,
    run_start_mcp,
    serve_live,
)
from kernels import run_async

pytestmark = pytest.mark.slow

NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
NEEDS_SLURM = {"hpc_slurm.ipynb"}
"""Notebooks whose job tools run on Slurm: their calls need the single-node cluster."""


def _cluster_for(name: str, request: pytest.FixtureRequest) -> None:
    if name in NEEDS_SLURM:
        request.getfixturevalue("slurm_cluster")


@pytest.fixture(scope="module")
def live(start_export_kernel: Callable[[], Any]) -> Callable[[str], dict[str, Any]]:
    """``live(name)``: the description of the notebook served in a kernel (one kernel per notebook)."""
    seen: dict[str, dict[str, Any]] = {}

    def described(name: str) -> dict[str, Any]:
        if name not in seen:
            kernel = start_export_kernel()
            try:
                seen[name] = run_async(describe(serve_live(kernel, NOTEBOOKS / name)))
            finally:
                kernel.shutdown()
        return seen[name]

    return described


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``exported(name)``: the notebook copied to a fresh folder and exported there as start_mcp.py."""
    made: dict[str, Path] = {}

    def make(name: str) -> Path:
        if name not in made:
            folder = tmp_path_factory.mktemp(name.removesuffix(".ipynb"))
            notebook = Path(shutil.copy(NOTEBOOKS / name, folder))
            done = export(notebook)
            assert done.returncode == 0, done.stderr
            made[name] = folder / "start_mcp.py"
        return made[name]

    return make


def test_there_are_notebooks_to_round_trip() -> None:
    assert len(NAMES) >= 4


@pytest.mark.parametrize("name", NAMES)
def test_the_script_run_with_python_serves_what_the_notebook_serves(
    name: str, live: Callable[[str], dict[str, Any]], exported: Callable[[str], Path], request: pytest.FixtureRequest
) -> None:
    _cluster_for(name, request)
    expected = live(name)
    with run_script(exported(name)) as url:
        actual = run_async(describe(url, token=SCRIPT_TOKEN))
    assert actual == expected
    calls = expected["calls"].values()
    assert expected["tools"]
    assert any(not call.get("is_error") for call in calls)  # not a comparison of errors only


@pytest.mark.parametrize("name", NAMES)
def test_the_script_run_with_start_mcp_serves_what_the_notebook_serves(
    name: str, live: Callable[[str], dict[str, Any]], exported: Callable[[str], Path], request: pytest.FixtureRequest
) -> None:
    _cluster_for(name, request)
    with run_start_mcp(exported(name)) as url:
        actual = run_async(describe(url, token=SCRIPT_TOKEN))
    assert actual == live(name)


def test_the_script_takes_its_port_from_mcp_port_else_the_notebook(exported: Callable[[str], Path]) -> None:
    script = exported("quickstart.ipynb")  # the notebook sets NanohubMCP.port = 0
    with run_script(script, "--host", "127.0.0.1") as url:
        assert not url.endswith(":8000/mcp")  # 0 = any free port, as in the notebook
    port = free_port()
    with run_script(script, "--host", "127.0.0.1", env={"MCP_PORT": str(port)}) as url:
        assert url == f"http://127.0.0.1:{port}/mcp"
