"""A job on the ``processes`` executor runs whatever the length of ``TMPDIR``.

The jobs' manager process listened on a socket file multiprocessing puts in a private folder of the temporary
directory; AF_UNIX takes at most 107 bytes of path, so a ``TMPDIR`` over ~75 bytes (a test runner's, a deep
session folder) made the manager fail to start ("AF_UNIX path too long", in the log) and every job fail with a
bare ``EOFError`` (found under pytest-xdist, whose temporary paths are longer). Now such a manager listens in the
abstract namespace on Linux. A real ``nanohubmcp run`` of an app, the official client.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from support import app_server, mcp_client

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the abstract namespace is Linux's")

APP = """from nanohubmcp import Context, MCPServer

server = MCPServer("long-tmpdir", job_executor="processes")


@server.async_tool()
def square(x: int, ctx: Context) -> int:
    \"\"\"x squared, in a process of its own (a ctx tool: its progress goes through the jobs' manager).\"\"\"
    ctx.report_progress(1, 1)
    return x * x
"""


def test_a_process_job_answers_with_a_temporary_directory_past_the_socket_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_tmp = tmp_path / ("t" * 60) / ("u" * 40)
    long_tmp.mkdir(parents=True)
    assert len(str(long_tmp)) + len("/pymp-XXXXXXXX/listener-XXXXXXXX") > 107
    app = tmp_path / "app" / "app.py"
    app.parent.mkdir()
    app.write_text(APP)
    monkeypatch.setenv("TMPDIR", str(long_tmp))
    monkeypatch.setenv("MCP_TOKEN", "")
    with app_server(app, log=tmp_path / "server.log") as served:

        async def job() -> dict[str, object]:
            async with mcp_client(served.url + "mcp") as client:
                handle = (await client.call_tool("square", {"x": 7})).structured_content
                with anyio.fail_after(60):
                    while (answer := (await client.call_tool(
                            "get_job_result", {"job_id": handle["job_id"]})).structured_content)["status"] == "running":
                        await anyio.sleep(0.05)
                return answer

        answer = anyio.run(job)
    log = (tmp_path / "server.log").read_text()
    assert answer["status"] == "done", (answer, log)
    assert "AF_UNIX path too long" not in log
