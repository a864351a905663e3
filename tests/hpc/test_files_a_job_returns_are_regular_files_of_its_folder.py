"""The files a batch job returns are regular files of its folder: a symbolic link is never followed, a FIFO never
waited on (what a run leaves may echo what a caller sent).

A ``submit`` run (the stand-in ``submit``) leaves, among its ``*.dat`` outputs, a regular file, a link to it, a link
out of its folder and a FIFO. The answer comes at once, holds the regular file's content, and no other file's: the
link out and the FIFO are not listed, the link inside is listed (its name matched) but its content is not sent.
Guards the opener these files share with the Rappture and Sim2L sources (``server.wire.left_files``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from jobs.job_server import Routes
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.nanohub import SubmitRun

LEAVE = """import os, sys
open("real.dat", "w").write("REAL-CONTENT\\n")
os.symlink("real.dat", "inner.dat")
os.symlink(sys.argv[1], "out.dat")
os.mkfifo("pipe.dat")
"""


def test_a_link_or_a_fifo_the_run_left_is_not_read(standin_submit: Path, tmp_path: Path) -> None:
    (tmp_path / "leave.py").write_text(LEAVE)
    secret = tmp_path / "secret.dat"
    secret.write_text("SECRET-OUTSIDE-THE-JOB\n")
    server = MCPServer("returned-links", state_dir=str(tmp_path / "state"), job_executor="submit")

    @server.async_tool()
    def leave() -> SubmitRun:
        """Leaves a file, links and a FIFO."""
        return SubmitRun([sys.executable, str(tmp_path / "leave.py"), str(secret)], outputs=["*.dat"])

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "leave", "arguments": {}, "task": {}})
        result = routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"]["files"] == ["inner.dat", "real.dat"]
    sent = [block["resource"] for block in result["content"] if block["type"] == "resource"]
    assert [(Path(r["uri"]).name, r["text"]) for r in sent] == [("real.dat", "REAL-CONTENT\n")]
    assert "SECRET-OUTSIDE-THE-JOB" not in str(result)
