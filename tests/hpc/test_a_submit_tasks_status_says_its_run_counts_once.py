"""A ``submit`` task's statusMessage says the live run counts once, with the progress after them, never glued to an
older progress message with other counts (trial78 NIT: ``submit: 0 finished, 1 executing, 2 waiting of 3 runs;
0/100 (0%) submit: 0 finished, 3 waiting of 3 runs``: a %done that did not rise kept the first counts as the
progress message). The stand-in ``submit``
(tests/hpc/standin) runs a sweep of three slow runs, one after the other."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from jobs.job_server import Routes
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.nanohub import SubmitRun

SLOW = "import sys, time\ntime.sleep(0.8)\nprint('done', sys.argv[1])"
STATUS = re.compile(r"submit: [^;]* of 3 runs(; [0-9.]+/100 \(\d+%\))?")


def test_the_status_says_the_counts_once_and_a_poll_the_live_ones(standin_submit: Path, tmp_path: Path) -> None:
    server = MCPServer("submit-status", state_dir=str(tmp_path), job_executor="submit")

    @server.async_tool()
    def sweep(caps: list[str]) -> SubmitRun:
        """One slow run per capacitance."""
        return SubmitRun([sys.executable, "-c", SLOW, "@@cap"], parameters={"cap": caps})

    seen: list[str] = []
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "sweep", "arguments": {"caps": ["1", "2", "3"]},
                                                   "task": {}})
        task_id = reply["result"]["task"]["taskId"]
        deadline = time.monotonic() + 60
        while (task := routes.rpc(session, "tasks/get", {"taskId": task_id})["result"])["status"] == "working":
            assert time.monotonic() < deadline, seen
            message = task.get("statusMessage", "")
            if message.startswith("submit:") and message not in seen:
                seen.append(message)
    assert task["status"] == "completed", task
    assert any("executing" in message for message in seen), seen  # the runs were seen going
    for message in seen:
        assert STATUS.fullmatch(message), (message, seen)  # the counts once, the progress after them
