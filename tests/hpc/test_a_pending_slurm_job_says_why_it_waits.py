"""A Slurm job that has not started says so, with Slurm's reason, and one that never can start
fails at once saying what to change — on a real single-node Slurm (scripts/slurm-single-node).

Found by a fresh-user trial (trial 12, LOW-4): a job asking for more CPUs than the partition has
stays PENDING (reason ``PartitionConfig``) forever, and ``get_job_result`` answered
``{"status": "running"}`` all along, as for a job that runs. Now a job Slurm holds answers
``{"status": "running", "queued": true, "message": "queued at Slurm as job N (reason: R)"}`` (as an
MCP task: ``working`` with that statusMessage), and a job whose reason means it can never start as
asked (``PartitionConfig``, ``PartitionTimeLimit``, ``BadConstraints``...) is ``scancel``ed and
fails with a message naming the reason and the options to change (``time`` in minutes: trial 18,
F11, the message said ``time 10`` for ``"0:10:00"``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import cloudpickle
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tools travel to the node by value

MORE_CPUS_THAN_THE_NODE_HAS = 64


def later() -> str:
    """Never runs in the test: Slurm holds it until its begin time, an hour away."""
    return "ran"


def too_big() -> str:
    """Never runs: it asks for more CPUs than the partition has."""
    return "ran"


def build(state: Path) -> MCPServer:
    server = MCPServer("pending-slurm", state_dir=str(state), job_executor="slurm")
    server.async_tool(executor_options={"sbatch": {"begin": "now+1hour"}})(later)
    server.async_tool(executor_options={"cpus_per_task": MORE_CPUS_THAN_THE_NODE_HAS, "time": "0:10:00"})(too_big)
    return server


def slurm_state(slurm_id: str) -> str:
    out = subprocess.run(
        ["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "State"], capture_output=True, text=True, timeout=30,
        check=False,
    ).stdout.split()
    return out[0] if out else ""


def test_a_job_slurm_holds_answers_queued_with_its_reason(slurm_cluster: str, tmp_path: Path) -> None:
    server = build(tmp_path)
    with serve(server) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        status, started = routes.rest_start("later", {})
        assert status == 202, started
        job_id = started["job_id"]

        def polled() -> dict[str, Any]:
            return dict(routes.rest_poll(job_id)[1])

        answer = wait_until(lambda: (a := polled()).get("message", "").endswith("(reason: BeginTime)") and a,
                            "the job's Slurm reason", 30)
        slurm_id = answer["message"].split()[5]
        assert answer == {"status": "running", "job_id": job_id, "queued": True,
                          "slurm": {"job_id": slurm_id, "state": "PENDING", "node": "", "reason": "BeginTime"},
                          "message": f"queued at Slurm as job {slurm_id} (reason: BeginTime)"}

        session = routes.session()  # as an MCP task: working, saying why it waits
        created = routes.rpc(session, "tools/call", {"name": "later", "arguments": {}, "task": {}})
        task_id = created["result"]["task"]["taskId"]
        got = wait_until(lambda: (g := routes.rpc(session, "tasks/get", {"taskId": task_id})["result"])
                         .get("statusMessage", "").endswith("(reason: BeginTime)") and g, "the task's reason", 30)
        assert got["status"] == "working", got
        assert got["statusMessage"].startswith("queued at Slurm as job "), got

        cancelled = routes.http("/tools/cancel_job", {"job_id": job_id})[2]
        assert cancelled["status"] == "cancelled", cancelled
        assert routes.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled"
        wait_until(lambda: slurm_state(slurm_id) == "CANCELLED", "the held job scancelled", 30)

        def followed_to_the_end(job: str) -> bool:  # the job's metadata says what Slurm says after the scancel
            meta = server.core.job_service.jobs.get(job, None).task_meta() or {}
            return bool(meta.get("org.nanohub/slurm", {}).get("state") == "CANCELLED")

        wait_until(lambda: followed_to_the_end(job_id), "the REST job followed to its end", 30)
        wait_until(lambda: routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]["_meta"]
                   ["org.nanohub/slurm"]["state"] == "CANCELLED", "the task followed to its end", 30)


def test_a_job_that_can_never_start_fails_saying_what_to_change(slurm_cluster: str, tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        status, started = routes.rest_start("too_big", {})
        assert status == 202, started
        answer = wait_until(lambda: (a := dict(routes.rest_poll(started["job_id"])[1]))["status"] != "running" and a,
                            "the job to fail", 60)

    assert answer["status"] == "error", answer
    error = answer["error"]
    slurm_id = error.split()[2]
    assert error.startswith(f"Slurm job {slurm_id} can never start as asked (reason: PartitionConfig)"), error
    assert f"cpus_per_task {MORE_CPUS_THAN_THE_NODE_HAS}" in error, error
    assert "time 10 min," in error, error  # Slurm's unit, for "0:10:00" (trial 18, F11: "time 10")
    assert "partition" in error, error
    assert "scancel" in error, error
    wait_until(lambda: slurm_state(slurm_id) == "CANCELLED", "the job scancelled, not left pending", 30)
