"""A Slurm job that exits non-zero without a Python error fails saying its exit code (sacct's ExitCode) and, with
nothing on its stderr, that its process ended without a Python error (trial78 NIT: ``os._exit(3)`` in the tool, or
``setup: ["exit 3"]``, failed ``Slurm job 567 failed (FAILED) before the tool returned``, no code, no clue)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import cloudpickle
import pytest
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def hard_exit() -> str:
    """Leaves the way a wrapped solver's abort does: no exception, no traceback."""
    os._exit(3)


def never_reached() -> str:
    """Its setup line exits before it runs."""
    return "ran"


@pytest.mark.parametrize(("tool", "options"), [("hard_exit", {}), ("never_reached", {"setup": ["exit 3"]})])
def test_the_error_says_the_exit_code_and_no_python_error(
    slurm_cluster: str, tmp_path: Path, tool: str, options: dict
) -> None:
    server = MCPServer("slurm-exits", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool(executor_options=options)(hard_exit if tool == "hard_exit" else never_reached)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start(tool, {})[1]["job_id"]
        answer = wait_until(lambda: (a := routes.rest_poll(job_id)[1]).get("status") != "running" and a,
                            "the job to fail", 120)
    assert answer["status"] == "error", answer
    error = answer["error"]
    assert " failed (FAILED, exit code 3) before the tool returned; it wrote nothing to stderr: its process ended " \
           "without a Python error (an exception leaves a traceback there), e.g. os._exit(), a signal, or an exit " \
           "in a setup line" in error, error
