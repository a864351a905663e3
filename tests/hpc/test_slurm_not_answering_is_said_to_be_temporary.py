"""A Slurm controller that does not answer is said to be temporary, never taken for a verdict (trial78, LOW).

- ``sbatch`` failing with ``Unable to contact slurm controller``: the call fails saying the controller did not
  answer, that this is no refusal of the job and to call again later (it read ``sbatch refused the job: ...``).
- A cancelled job whose ``scancel`` the controller does not answer keeps the state last seen (not ``CANCELLED``)
  and its ``scancel`` is run again until Slurm takes it (it was said ``CANCELLED`` and ran on).
- A running job whose ``squeue`` and ``sacct`` fail while the controller (and the accounting database) do not
  answer: its status says Slurm does not answer and it keeps its state; once its result is there it is collected.
  (It failed ``VANISHED``: a failed ``squeue`` read as "not listed".)

The controller is made unreachable for the server's commands only, with ``SLURM_CONF`` naming a copy of the
cluster's configuration whose ports nothing listens on: the real cluster runs on for the other tests.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
import pytest
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])

CLUSTER_CONF = Path("/etc/slurm/slurm.conf")


def until_marker(marker: str) -> str:
    """Run until ``marker`` exists (at most two minutes)."""
    deadline = time.monotonic() + 120
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return "went on" if Path(marker).exists() else "no marker"


def unreachable_conf(folder: Path) -> Path:
    """A copy of the cluster's slurm.conf whose controller and accounting ports are the discard port (9)."""
    kept = [line for line in CLUSTER_CONF.read_text().splitlines()
            if not line.startswith(("SlurmctldPort=", "AccountingStoragePort="))]
    conf = folder / "unreachable-slurm.conf"
    conf.write_text("\n".join([*kept, "SlurmctldPort=9", "AccountingStoragePort=9", ""]))
    return conf


def running_task(routes: Routes, session: str, marker: Path) -> tuple[str, dict]:
    """``until_marker(marker)`` started as a task of ``session``, once Slurm runs it: its task id and tasks/get."""
    reply = routes.rpc(session, "tools/call", {"name": "until_marker", "arguments": {"marker": str(marker)},
                                               "task": {}})
    task_id = reply["result"]["task"]["taskId"]

    def running() -> dict | None:
        task = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
        return task if "is running on node" in task.get("statusMessage", "") else None

    return task_id, wait_until(running, "the job to run", 90)


def finished(routes: Routes, job_id: str) -> dict | None:
    answer = routes.rest_poll(job_id)[1]
    return answer if answer.get("status") != "running" else None


def test_an_sbatch_the_controller_does_not_answer_says_call_again_later(
    slurm_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = MCPServer("slurm-silent", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool()(until_marker)
    monkeypatch.setenv("SLURM_CONF", str(unreachable_conf(tmp_path)))
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        body = routes.rest_start("until_marker", {"marker": str(tmp_path / "never")})[1]
        answer = wait_until(lambda: finished(routes, body["job_id"]), "the failed submission", 90)
    assert answer["status"] == "error", answer
    error = answer["error"]
    assert not error.startswith("sbatch refused the job"), error
    assert error.startswith("the Slurm controller did not answer sbatch, so no job was started for this call."), error
    assert "This is not a refusal of the job and is usually temporary" in error, error
    assert "call the tool again later" in error, error
    assert "Unable to contact slurm controller" in error, error  # what sbatch said


def test_a_job_slurm_cannot_be_asked_about_keeps_its_state_and_is_collected(
    slurm_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanohubmcp.server.executors import slurm_watch

    monkeypatch.setattr(slurm_watch, "SACCT_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(slurm_watch, "VANISHED_AFTER_SECONDS", 0.0)  # the first failed looks would end it
    marker = tmp_path / "go-on"
    server = MCPServer("slurm-silent", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool()(until_marker)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        task_id, _ = running_task(routes, session, marker)

        def task() -> dict:
            return routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]

        monkeypatch.setenv("SLURM_CONF", str(unreachable_conf(tmp_path)))
        def silence_or_end() -> dict | None:
            now = task()
            return now if now["status"] != "working" or "does not answer" in now.get("statusMessage", "") else None

        silent = wait_until(silence_or_end, "the status to say Slurm does not answer", 90)
        assert silent["status"] == "working", silent
        slurm = silent["_meta"]["org.nanohub/slurm"]
        assert silent["statusMessage"].startswith(f"Slurm job {slurm['job_id']} is running on node"), silent
        assert "(as last seen); Slurm does not answer now, the server goes on looking (squeue: " in (
            silent["statusMessage"]), silent
        assert slurm["state"] == "RUNNING", silent
        marker.write_text("")  # the job ends while Slurm still does not answer: its result is read from its folder
        wait_until(lambda: task()["status"] != "working", "the job's end", 120)
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
    assert result.get("isError") is not True, result
    assert result["content"][0]["text"] == "went on", result


def test_a_scancel_the_controller_does_not_answer_is_run_again_until_slurm_takes_it(
    slurm_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server = MCPServer("slurm-silent", state_dir=str(tmp_path), job_executor="slurm")
    server.async_tool()(until_marker)  # (it never looks at ctx.is_cancelled: only scancel ends it)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        task_id, running = running_task(routes, session, tmp_path / "never")
        slurm_id = running["_meta"]["org.nanohub/slurm"]["job_id"]
        monkeypatch.setenv("SLURM_CONF", str(unreachable_conf(tmp_path)))
        routes.rpc(session, "tasks/cancel", {"taskId": task_id})
        wait_until(lambda: any("scancel of Slurm job" in r.getMessage() for r in caplog.records),
                   "the server to say its scancel was not answered", 90)
        cancelled = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
        assert cancelled["status"] == "cancelled", cancelled
        assert cancelled["_meta"]["org.nanohub/slurm"]["state"] == "RUNNING", cancelled  # as last seen
        monkeypatch.delenv("SLURM_CONF")  # the controller answers again: the scancel run again takes effect
        wait_until(lambda: accounted_state(slurm_id) == "CANCELLED", "Slurm to record the job CANCELLED", 90)
    [said] = [r.getMessage() for r in caplog.records if "scancel of Slurm job" in r.getMessage()]
    assert said.startswith(f"the scancel of Slurm job {slurm_id} was not answered (scancel: "), said
    assert "Unable to contact slurm controller" in said, said


def accounted_state(slurm_id: str) -> str:
    done = subprocess.run(["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "State"],
                          capture_output=True, text=True, timeout=60, check=False)
    return (done.stdout.split() or [""])[0]
