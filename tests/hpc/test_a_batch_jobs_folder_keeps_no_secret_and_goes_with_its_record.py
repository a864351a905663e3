"""A batch job's folder keeps the call's inputs only while it runs, and goes with the job's record.

On the real single-node Slurm: a call with a ``Secret`` argument becomes a Slurm job, whose folder
holds submitit's pickled call (the secret's value in clear) while it runs. Once its result is
stored, the pickled call and result are gone (no file under the state directory holds the secret),
its logs stay while the job can be read, and once its record expired (``job_ttl_seconds``) the
folder is gone. The same for a ``submit`` job (the stand-in ``submit``): its command line,
``submit.json``, goes at its end and its folder with its record. That a restarted server still
takes back a running Slurm job (it needs the folder while the job runs), and that it removes the
folders of jobs its store does not hold at start, is
``test_slurm_jobs_outlive_the_server_and_their_time_limit_is_reported``.

Trial 18, F3: the folders — pickled Secret included — stayed for ever, also across restarts.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer, Secret
from nanohubmcp.nanohub import SubmitRun

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SECRET = "SUPERSECRET-LICENSE-42"
TTL = 3


def holding(where: Path, text: str) -> list[str]:
    """The files under ``where`` that hold ``text``."""
    found = subprocess.run(["grep", "-rl", text, str(where)], capture_output=True, text=True, check=False)
    return found.stdout.split()


def licensed(a: int, go: str, license_key: Secret = "") -> int:
    """Needs a licence to run (its value reaches the node); returns once ``go`` exists."""
    assert license_key == SECRET
    deadline = time.monotonic() + 60
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return a + 1


def sweep(server: MCPServer) -> None:
    """The runner's periodic upkeep (every minute), asked for now, on the serving loop."""
    loop = server.core.loop
    assert loop is not None
    loop.call_soon_threadsafe(server.core.sweep)


def test_a_slurm_jobs_pickled_call_goes_at_its_end_and_its_folder_with_its_record(
    slurm_cluster: str, tmp_path: Path
) -> None:
    server = MCPServer("slurm-folders", state_dir=str(tmp_path), job_executor="slurm", job_ttl_seconds=TTL)
    server.async_tool()(licensed)
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        go = tmp_path / "go"
        job_id = routes.rest_start("licensed", {"a": 1, "go": str(go), "license_key": SECRET})[1]["job_id"]
        folder = tmp_path / "slurm-jobs" / job_id
        wait_until(lambda: list(folder.glob("*_submitted.pkl")), "sbatch to take the job")
        assert holding(folder, SECRET)  # while it runs, the node needs the call
        go.write_text("go")
        done = wait_until(
            lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
            "the job's result",
            90,
        )
        assert done["status"] == "done", done
        assert done["result"] == 2
        assert holding(tmp_path, SECRET) == []
        assert not list(folder.glob("*.pkl"))
        assert list(folder.glob("*_0_log.err"))  # its logs stay while the job can be read
        # what stays is what hpc-jobs.md "What stays in the job folders" lists (trial20 F12)
        kept = {re.sub(r"^\d+_", "<id>_", re.sub(r"_[0-9a-f]{32}\.sh$", "_<hex>.sh", p.name)) for p in folder.iterdir()}
        assert kept <= {"<id>_0_log.out", "<id>_0_log.err", "events.jsonl", "<id>_submission.sh",
                        ".submission_file_<hex>.sh", ".nanohubmcp-job"}, kept

        wait_until(lambda: routes.rest_poll(job_id)[1]["status"] == "not_found", "the job to expire", TTL + 10)
        sweep(server)
        wait_until(lambda: not folder.exists(), "the expired job's folder to go", 10)


def test_a_submit_jobs_command_line_goes_at_its_end_and_its_folder_with_its_record(
    standin_submit: Path, tmp_path: Path
) -> None:
    server = MCPServer(
        "submit-folders",
        state_dir=str(tmp_path),
        job_executor="submit",
        job_ttl_seconds=TTL,
        executor_options={"local": True},
    )

    @server.async_tool()
    def licensed_run(license_key: Secret = "") -> SubmitRun:
        """Runs a program that needs a licence in its environment."""
        return SubmitRun([sys.executable, "-c", "print('ran')"], env={"LICENSE": license_key})

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("licensed_run", {"license_key": SECRET})[1]["job_id"]
        folder = tmp_path / "submit-jobs" / job_id
        done = wait_until(
            lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
            "the run's result",
            60,
        )
        assert done["status"] == "done", done
        assert not (folder / "submit.json").exists()
        assert holding(folder, SECRET) == [], holding(folder, SECRET)
        assert (folder / "submit.out").exists()

        wait_until(lambda: routes.rest_poll(job_id)[1]["status"] == "not_found", "the job to expire", TTL + 10)
        sweep(server)
        wait_until(lambda: not folder.exists(), "the expired job's folder to go", 10)
