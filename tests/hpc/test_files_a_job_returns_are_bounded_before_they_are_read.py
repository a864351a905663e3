"""The files a batch job returns are bounded before they are read (review r41 R41-4).

A ``submit`` run's outputs (and a Slurm job's returned paths) were read whole, then base64-encoded,
before any size was looked at: a 600 MB file a call's arguments asked for took 2.2 GB of the server's
memory before the kept-results limit refused the answer. Now each file is opened without following a
link, its size taken (``fstat``) and added up first: past the bound (the server's ``max_kept_bytes``, the largest
result it keeps, lowered here; it was a fixed 512 MiB whatever the server's setting, files42) the job fails saying
so, without reading them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jobs.job_server import Routes
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.nanohub import SubmitRun

WRITE = "import sys\nopen('big.dat', 'wb').write(b'x' * int(sys.argv[1]))\n"
LIMIT = 1024 * 1024


def test_a_run_writing_past_the_bound_fails_naming_it(standin_submit: Path, tmp_path: Path) -> None:
    (tmp_path / "write.py").write_text(WRITE)
    server = MCPServer("returned-files", state_dir=str(tmp_path / "state"), job_executor="submit",
                       max_kept_bytes=LIMIT)

    @server.async_tool()
    def write(size: int) -> SubmitRun:
        """Writes a file of ``size`` bytes."""
        return SubmitRun([sys.executable, str(tmp_path / "write.py"), str(size)], outputs=["*.dat"])

    def call(routes: Routes, session: str, size: int) -> dict:
        reply = routes.rpc(session, "tools/call", {"name": "write", "arguments": {"size": size}, "task": {}})
        return routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        refused = call(routes, session, 2 * LIMIT)
        kept = call(routes, session, LIMIT // 2)
    assert refused["isError"], refused
    text = refused["content"][0]["text"]
    assert f"hold more than {LIMIT} bytes (at big.dat, {2 * LIMIT} bytes" in text, text
    assert "more than the server keeps for large results (its max_kept_bytes): have the run write less" in text, text
    assert "or raise the server's max_kept_bytes" in text, text
    # a tool's own executor options make another executor: it keeps the server's bound
    assert server.core.job_service.runners.runner_for("submit", {"poll_interval": 0.5}).max_returned_bytes == LIMIT
    assert not kept.get("isError"), kept
    assert kept["structuredContent"]["files"] == ["big.dat"]
