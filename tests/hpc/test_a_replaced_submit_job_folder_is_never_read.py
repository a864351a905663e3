"""A ``submit`` job whose folder another user renamed and replaced fails naming the folder, its client is stopped,
and nothing the other put there (an ``exit_status``, output files) is read — with the stand-in for nanoHUB's
``submit`` (tests/hpc/standin/submit).

Review r41 R41-1 (HIGH), the ``submit`` side: in a group-shared ``job_dir`` the server read ``exit_status``,
the outputs and, on cancel, the ``pid`` to ``killpg`` from whatever folder was at the job's path.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from jobs.job_server import Routes, wait_until
from support import serve

from nanohubmcp import MCPServer


def test_a_replaced_submit_job_folder_fails_the_job_and_stops_its_client(
    standin_submit: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.chmod(project, 0o2775)
    started = tmp_path / "started"
    server = MCPServer("swapped-submit", state_dir=str(tmp_path / "state"), job_executor="submit",
                       executor_options={"job_dir": str(project)})

    @server.async_tool()
    def long_run() -> list[str]:
        """Runs for up to a minute through submit."""
        return ["sh", "-c", f"echo $$ > {started}; exec sleep 60"]

    with serve(server) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        job_id = routes.rest_start("long_run", {})[1]["job_id"]
        pid = int(wait_until(lambda: started.exists() and started.read_text().strip(), "the run to start", 60))
        folder = project / job_id
        folder.rename(project / f"{job_id}.old")
        folder.mkdir(mode=0o700)
        (folder / "exit_status").write_text("0")
        (folder / "submit.out").write_text("forged answer\n")
        ended = wait_until(lambda: (a := routes.rest_poll(job_id)[1]).get("status") in ("error", "done") and a,
                           "the job ended", 30)
        assert ended["status"] == "error", ended  # (before: "done", answered from the planted folder)
        assert f"folder {folder} was replaced (another folder is at its path now" in ended["error"], ended
        assert "forged" not in str(ended)

        def gone() -> bool:
            state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True,
                                   check=False).stdout.strip()
            return state in ("", "Z")

        wait_until(gone, "the run stopped", 30)
