"""A batch executor's ``job_dir`` made beforehand keeps its mode; the job folders made in it are owner-only.

Review r21 M2: a ``job_dir`` in a project space (group-shared, ``2775``: setgid, so files made there belong
to the project's group) was set to ``0700`` at every job, silently taking the group's access and the setgid
bit; the folders the server makes (the job folders, a ``job_dir`` it had to make) are its own to set.
With the stand-in for nanoHUB's ``submit`` (tests/hpc/standin/submit).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer


def modes_after_a_job(job_dir: Path, state: Path) -> tuple[int, int]:
    """The modes of ``job_dir`` and of the folder of one finished ``submit`` job in it."""
    server = MCPServer("job-dir", state_dir=str(state), job_executor="submit",
                       executor_options={"job_dir": str(job_dir)})

    @server.async_tool()
    def greet() -> list[str]:
        """Runs one command through submit."""
        return ["echo", "hello"]

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        job_id = routes.rest_start("greet", {})[1]["job_id"]
        wait_until(lambda: (routes.rest_poll(job_id)[1] or {}).get("status") == "done", "the job to end", 60)
        return stat.S_IMODE(os.stat(job_dir).st_mode), stat.S_IMODE(os.stat(job_dir / job_id).st_mode) & 0o777


def test_a_shared_job_dir_keeps_its_mode_and_a_missing_one_is_made_owner_only(
    standin_submit: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.chmod(project, 0o2775)
    made = tmp_path / "made" / "jobs"
    assert modes_after_a_job(project, tmp_path / "state") == (0o2775, 0o700)
    assert modes_after_a_job(made, tmp_path / "state") == (0o700, 0o700)
    assert stat.S_IMODE(os.stat(made.parent).st_mode) == 0o700  # made on the way: owner-only too
