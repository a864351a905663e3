"""A Slurm job polled while it runs says where it runs and how far it got — on a real single-node
Slurm (scripts/slurm-single-node).

Found by a fresh-scientist trial (trial 15, F3): ``tasks/get`` answered statusMessage "Slurm job
261 is running on node vm" and ``get_job_result`` ``{"status": "running", "job_id": ...}`` for the
whole run, though the job reported "10/60 sweep 10" and ``%mcp jobs`` showed it. Now the task says
``"Slurm job N is running on node vm; 10/60 (17%) sweep 10"`` and ``get_job_result`` carries
``"progress": {"progress": 10, "total": 60, "message": "sweep 10"}``.

Trial 66 F11: ``get_job_result`` said nothing of the Slurm job (its id, state, node) while it ran or once it
ended; only the task's ``_meta`` and log messages did (the official SDK cannot make tasks, and warns that logging
is deprecated). Its answer now carries ``"slurm": {"job_id", "state", "node", "reason"}``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import cloudpickle
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import Context, MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tool travels to the node by value


def relax(steps: int, release: str, ctx: Context) -> dict:
    """Report ten steps of ``steps``, then wait until the file ``release`` exists."""
    ctx.report_progress(10, steps, "sweep 10")
    deadline = time.monotonic() + 120
    while not os.path.exists(release) and time.monotonic() < deadline and not ctx.is_cancelled():
        time.sleep(0.1)
    return {"steps": steps}


def test_a_running_slurm_tasks_status_message_carries_its_progress(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-progress", state_dir=str(tmp_path / "state"), job_executor="slurm")
    server.async_tool()(relax)
    release = tmp_path / "release"
    try:
        with serve(server) as url:
            routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
            session = routes.session()
            arguments = {"steps": 60, "release": str(release)}
            created = routes.rpc(session, "tools/call", {"name": "relax", "arguments": arguments, "task": {}})
            task_id = created["result"]["task"]["taskId"]

            def said() -> str:
                return str(routes.rpc(session, "tasks/get", {"taskId": task_id})["result"].get("statusMessage", ""))

            # The job's first report may come before the watcher's next squeue saw it start (then the
            # line still says "queued at Slurm as job N; 10/60 ..."): wait for both.
            wait_until(lambda: (m := said()).startswith("Slurm job ") and m.endswith("sweep 10"), "its progress", 90)
            task = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
            slurm_id = task["_meta"]["org.nanohub/slurm"]["job_id"]
            assert task["status"] == "working", task
            assert (
                task["statusMessage"]
                == f"Slurm job {slurm_id} is running on node {slurm_cluster}; 10/60 (17%) sweep 10"
            )

            def polled() -> dict:  # the same job through get_job_result, in its session
                call = {"name": "get_job_result", "arguments": {"job_id": task_id}}
                return dict(routes.rpc(session, "tools/call", call)["result"]["structuredContent"])

            assert polled() == {
                "status": "running",
                "job_id": task_id,
                "slurm": {"job_id": slurm_id, "state": "RUNNING", "node": slurm_cluster, "reason": ""},
                "progress": {"progress": 10, "total": 60, "message": "sweep 10"},
            }
            release.touch()
            done = wait_until(lambda: (a := polled())["status"] != "running" and a, "the end", 90)
            assert done["status"] == "done", done
            assert done["slurm"] == {"job_id": slurm_id, "state": "COMPLETED", "node": slurm_cluster, "reason": ""}
    finally:
        release.touch()
