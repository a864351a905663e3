"""A queued Slurm job whose folder another user renamed and replaced is scancelled and fails naming the folder; the
pickle planted in its place is never loaded — on the real single-node Slurm (scripts/slurm-single-node).

Review r41 R41-1 (HIGH): in a group-shared ``job_dir`` (the documented project-space set-up, ``2775``) a group
member renamed the server's 0700 job folder (a rename needs write access to the parent only), made their own under
its name (``squeue -o %Z`` shows it to every user) holding ``<slurm id>_0_result.pkl``, and the server unpickled
it: code run as the server's user while the job was still pending. The server now reads a job's files only through
the folder it made (same inode, its user's alone) and scancels the job (whose node would otherwise unpickle the
planted ``_submitted.pkl``). With the sticky bit on ``job_dir`` (``3770``, as hpc-jobs.md says) the rename itself
is refused; the server warns at start of a ``job_dir`` without it.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import cloudpickle
import pytest
from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tool travels to the node by value


def later() -> str:
    """Never runs in the test: Slurm holds it until its begin time, an hour away."""
    return "ran"


class Planted:
    """What a group member puts in the replaced folder: unpickling it runs a command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"id > {self.marker}",)


def slurm_state(slurm_id: str) -> str:
    out = subprocess.run(["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "State"], capture_output=True, text=True,
                         timeout=30, check=False).stdout.split()
    return out[0] if out else ""


@pytest.mark.parametrize("planter", ["the same user", "another user"])
def test_a_replaced_job_folder_is_refused_and_its_job_scancelled(
    slurm_cluster: str, tmp_path: Path, planter: str, caplog: pytest.LogCaptureFixture
) -> None:
    if planter == "another user" and os.geteuid() != 0:
        pytest.skip("only root can make a folder of another uid (the CI runs as root)")
    project = tmp_path / "project"
    project.mkdir()
    os.chmod(project, 0o2775)  # a project space as hpc-jobs.md described it before: group-writable, no sticky bit
    marker = tmp_path / "PLANTED-PICKLE-RAN"
    server = MCPServer("swapped-slurm", state_dir=str(tmp_path / "state"), job_executor="slurm",
                       executor_options={"job_dir": str(project), "sbatch": {"begin": "now+1hour"}})
    server.async_tool()(later)
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        status, started = routes.rest_start("later", {})
        assert status == 202, started
        job_id = started["job_id"]
        answer = wait_until(lambda: (a := routes.rest_poll(job_id)[1]).get("queued") and a, "the job queued", 60)
        slurm_id = answer["slurm"]["job_id"]
        folder = project / job_id
        folder.rename(project / f"{job_id}.old")
        folder.mkdir(mode=0o755)
        (folder / f"{slurm_id}_0_result.pkl").write_bytes(pickle.dumps(Planted(marker)))
        if planter == "another user":
            for path in (folder, folder / f"{slurm_id}_0_result.pkl"):
                os.chown(path, 65534, 65534)
        else:
            os.chmod(folder, 0o700)  # as the server makes them: only its inode tells it apart
        ended = wait_until(lambda: (a := routes.rest_poll(job_id)[1]).get("status") == "error" and a,
                           "the job failed", 60)
        wait_until(lambda: slurm_state(slurm_id) == "CANCELLED", "the held job scancelled", 60)
    assert not marker.exists(), marker.read_text()
    said = ("owned by uid 65534, not by the server's user" if planter == "another user"
            else "was replaced (another folder is at its path now")
    assert f"folder {folder} " in ended["error"], ended
    assert said in ended["error"], ended
    assert any("job_dir" in r.getMessage() and "without the sticky bit" in r.getMessage() for r in caplog.records)
