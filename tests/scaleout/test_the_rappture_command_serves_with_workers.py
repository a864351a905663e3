"""``nanohubmcp rappture TOOL.xml --workers 2 --state-url redis://...``: two forked processes serve the tool
on one port, each running it (through the stand-in ``rappture -execute`` tests/rappture uses), as
``nanohubmcp run APP --workers 2`` does for an app file; one killed is started again and serves it too.

Found by a fresh-user trial: ``nanohubmcp rappture`` had no ``--workers``/``--state-url`` ("unrecognized
arguments"); serving a Rappture tool in several processes took an app file of one's own. Real parts: a
redis-server, the command's parent and workers, the stand-in ``rappture`` on ``PATH``, the official ``mcp``
client; every wait is for a condition.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from cluster import processes_with
from redis_server import RedisServer
from support import ROOT, mcp_client, wait_until

from nanohubmcp.sources.rappture.execute import COMPAT_PATH

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="workers found through /proc (Linux)")

STANDIN = ROOT / "tests" / "rappture" / "standin" / "rappture"

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Where it ran</title><command>python @tool/where.py @driver</command></tool>
  <input><string id="note"><default>none</default></string></input>
</run>
"""

# The process ids above the program, up to init: the worker that ran it is one of them.
PROGRAM = """import os, sys
import Rappture

chain, pid = [], os.getpid()
while pid > 1:
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    pid = int(text[text.rfind(")") + 2:].split()[1])
    chain.append(str(pid))
with open(f"/proc/{os.getppid()}/cmdline") as cmdline:
    parent = cmdline.read().replace("\\0", " ")
driver = Rappture.library(sys.argv[1])
driver.put("output.string(ancestors).current", " ".join(chain))
driver.put("output.string(parent).current", parent)
driver.put("output.string(note).current", driver.get("input.string(note).current"))
Rappture.result(driver)
"""


def hub_environment(tmp_path: Path) -> dict[str, str]:
    """A hub's ``PATH`` (the stand-in ``rappture``, ``python``) and Rappture's Python package, as
    tests/rappture's ``hub_path`` fixture makes them, for a server process of its own."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rappture").symlink_to(STANDIN)
    (bin_dir / "python").symlink_to(sys.executable)
    (tmp_path / "tmp").mkdir()
    paths = [str(ROOT), str(COMPAT_PATH), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_STATE_URL"}
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "PYTHONPATH": os.pathsep.join(paths),
            "TMPDIR": str(tmp_path / "tmp"), "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}


async def ran_in(url: str, note: str) -> set[int]:
    """Call the tool with the official client (a connection of its own); the process ids above its program."""
    async with mcp_client(url) as client:
        result = await client.call_tool("where", {"note": note})
    assert not result.is_error, result.content
    outputs = result.structured_content["outputs"]
    assert outputs["note"]["value"] == note
    assert " -execute " in outputs["parent"]["value"], outputs  # run by the stand-in, as on a hub
    return {int(pid) for pid in outputs["ancestors"]["value"].split()}


@pytest.mark.timeout(180)
def test_two_workers_serve_the_tool_and_one_started_again_serves_it_too(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    tool = tmp_path / "where"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL)
    (tool / "where.py").write_text(PROGRAM)
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "rappture", str(tool / "tool.xml"), "--port", "0", "--workers", "2",
             "--state-url", redis_server.url, "--access-log", "--max-request-bytes", "4096"],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            env=hub_environment(tmp_path), start_new_session=True,
        )  # fmt: skip

    def text() -> str:
        return log.read_text(errors="replace")

    def workers() -> set[int]:
        return processes_with(1, server.pid)

    try:
        banner = wait_until(lambda: server.poll() is not None or re.search(r"listening on 127\.0\.0\.1:(\d+)", text()),
                            "the banner")
        assert server.poll() is None, text()
        url = f"http://127.0.0.1:{banner.group(1)}/mcp"
        first = wait_until(lambda: len(workers()) == 2 and workers(), "two workers")

        served: set[int] = set()
        for call in range(24):  # each client connects anew: the kernel spreads connections over both workers
            served |= anyio.run(ran_in, url, f"call {call}") & first
            if served == first:
                break
        assert served == first, f"only {served} of the workers {first} ran the tool:\n{text()}"
        assert text().count("MCP Server 'where'") == 1, "one banner, from the process that read the tool"
        assert {int(pid) for pid in re.findall(r"\[worker pid (\d+)\] nanohubmcp\.access", text())} <= first
        # --max-request-bytes reached the workers' run(): a body above it is refused before it is read
        assert httpx.post(url, content=b"x" * 5000, headers={"Content-Type": "application/json"}).status_code == 413

        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: f"(pid {victim}) killed by SIGKILL; restarted" in text(), "the restart")
        again = wait_until(lambda: len(workers() - {victim}) == 2 and workers() - {victim}, "the worker started again")
        (started,) = again - first
        for call in range(24):
            if started in anyio.run(ran_in, url, f"again {call}"):
                break
        else:
            pytest.fail(f"the worker started again ({started}) never ran the tool:\n{text()}")
        assert text().count("MCP Server 'where'") == 1, "a worker started again prints no banner"
    finally:
        server.terminate()  # the parent passes it on to its workers
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
    assert "Traceback" not in text(), text()
