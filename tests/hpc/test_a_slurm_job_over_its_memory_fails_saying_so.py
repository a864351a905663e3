"""A Slurm job that uses more memory than its ``mem`` fails saying it ran out of memory — on the real
single-node Slurm, which enforces ``--mem`` (scripts/slurm-single-node: task/cgroup, ConstrainRAMSpace).

The tool writes into 400 MB under ``mem: 100M``: Slurm kills it and ends the job ``OUT_OF_MEMORY``, and
the client's error says so as docs/how-to/hpc-jobs.md shows (``ran out of memory (OUT_OF_MEMORY, mem
100M``). Trial 18, F8: the cluster did not enforce ``--mem`` (``TaskPlugin=task/none``), and such a job
ended ``done``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cloudpickle
import pytest
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def greedy() -> int:
    """Touches every page of 400 MB."""
    block = bytearray(400 * 1024 * 1024)
    for at in range(0, len(block), 4096):
        block[at] = 1
    return len(block)


@pytest.mark.timeout(180)
def test_a_job_over_its_mem_fails_with_out_of_memory(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-memory", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool(executor_options={"mem": "100M", "time": 5})(greedy)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("greedy", {})[1]["job_id"]
        answer = wait_until(
            lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
            "Slurm to end the job",
            120,
        )
    assert answer["status"] == "error", answer
    assert "ran out of memory (OUT_OF_MEMORY, mem 100M" in answer["error"], answer["error"]
