"""Every notebook in ``notebooks/`` runs under nbclient, and its server answers the official client.

Each notebook is executed cell by cell in a real kernel; with the kernel still running, the
test reads the server's URL (``%mcp url``), lists the tools, resources and prompts, and calls one
tool with a known answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from kernel_launch import execute_notebook
from kernels import KERNEL_NAME, kernel_environment, run_async
from nbclient import NotebookClient
from support import mcp_client

pytestmark = pytest.mark.slow

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _projectile_range(v0: float) -> float:
    return round(v0**2 / 9.81, 3)  # at 45 degrees from the ground: v0^2 sin(90 deg) / g


# notebook -> (tools, resources, prompts, (tool, arguments, check of the call result))
EXPECTED: dict[str, Any] = {
    "apps.ipynb": (
        {"damped_oscillation"},
        {"ui://plots/chart"},
        set(),
        (
            "damped_oscillation",
            {"points": 3, "damping": 0.0},
            lambda r: r.structured_content["x"] == [0.0, 5.0, 10.0] and r.structured_content["y"] == [1.0, 1.0, 1.0],
        ),
    ),
    "nanohub_tools.ipynb": (
        {"kelvin", "planck", "decay"},
        set(),
        set(),
        ("kelvin", {"celsius": 25}, lambda r: r.content[0].text == "298.15"),
    ),
    "quickstart.ipynb": (
        {"add", "greet", "count_slowly", "get_job_result", "cancel_job"},
        {"notebook://quickstart/about"},
        {"explain"},
        ("greet", {"name": "Ada", "excited": True}, lambda r: r.content[0].text == "Hello, Ada!"),
    ),
    "calculator.ipynb": (
        {"add", "power", "subtract", "multiply", "divide"},
        {"config://calculator/settings"},
        {"calculate"},
        ("divide", {"a": 1, "b": 0}, lambda r: r.is_error and r.content[0].text == "Cannot divide by zero"),
    ),
    "data_analysis.ipynb": (
        {"descriptive_stats", "correlation", "linear_regression", "normalize"},
        {"data://samples/temperatures", "data://samples/scatter"},
        {"analyze_data"},
        (
            "descriptive_stats",
            {"data": "10,20,30,40,50"},
            lambda r: (
                json.loads(r.content[0].text)
                == {"count": 5, "mean": 30.0, "median": 30.0, "min": 10.0, "max": 50.0, "std": 14.142136}
            ),
        ),
    ),
    "science.ipynb": (
        {"simulate", "fit_decay", "plot"},
        set(),
        set(),
        (
            "simulate",
            {"damping": 0.1, "frequency": 2.0, "t_end": 1.0, "steps": 10},
            lambda r: (
                len(r.structured_content["result"]) == 11
                and r.structured_content["result"][0] == {"index": 0, "t": 0.0, "x": 1.0, "v": 0.0}
            ),
        ),
    ),
    "simulator.ipynb": (
        {"projectile_motion", "harmonic_oscillator", "wave_properties", "ideal_gas", "relativistic_energy"},
        {"constants://physics"},
        {"physics_problem"},
        (
            "projectile_motion",
            {"v0": 50, "angle": 45},
            lambda r: json.loads(r.content[0].text)["range"] == _projectile_range(50),
        ),
    ),
}


ELSEWHERE = {"hpc_slurm.ipynb": "tests/hpc/test_the_slurm_notebook_sends_its_async_cell_to_slurm.py"}
"""Notebooks that need more than a kernel (a Slurm cluster), run by the tests of that area."""


def test_every_notebook_is_covered() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted([*EXPECTED, *ELSEWHERE])
    root = Path(__file__).resolve().parents[2]
    assert all((root / test).exists() for test in ELSEWHERE.values())


@pytest.mark.timeout(300)  # nanohub_tools.ipynb runs a Sim2L with papermill: a second kernel starts
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_notebook_runs_and_its_server_answers(
    name: str, kernel_specs: Path, ipython_dir: Path, tmp_path: Path
) -> None:
    tools, resources, prompts, (tool, arguments, check) = EXPECTED[name]
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    specs = KernelSpecManager(kernel_dirs=[str(kernel_specs)], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(
        notebook, km=manager, timeout=120, startup_timeout=60, resources={"metadata": {"path": str(tmp_path)}}
    )
    try:
        with client.setup_kernel(env=kernel_environment(ipython_dir)):
            url = execute_notebook(client)

            async def inspect() -> tuple[Any, ...]:
                async with mcp_client(url) as session:
                    listed = {t.name for t in (await session.list_tools()).tools}
                    found = {str(r.uri) for r in (await session.list_resources()).resources}
                    offered = {p.name for p in (await session.list_prompts()).prompts}
                    return listed, found, offered, await session.call_tool(tool, arguments)

            listed, found, offered, result = run_async(inspect())
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
        run_async(manager.shutdown_kernel(now=False))
    assert listed == tools
    assert found == resources
    assert offered == prompts
    assert check(result), result
    errors = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []
