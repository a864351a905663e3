"""A tool raising a 3 MB message has it in the server's log once a call (trial57 F10: the one-line summary and
the traceback's last line both held it whole, 6 MB a call, 60 MB after 10 calls): the traceback keeps the
message whole, the summary line above it says it cut as a client is sent it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import pytest
from example_process import ROOT, stop, wait_for_banner
from support import mcp_client

pytestmark = pytest.mark.slow

MESSAGE_CHARS = 3_000_000
SCRIPT = f"""
from nanohubmcp import MCPServer

server = MCPServer("big")


@server.tool()
def boom() -> str:
    \"\"\"Raise a huge message.\"\"\"
    raise ValueError("X" * {MESSAGE_CHARS})


server.run(host="127.0.0.1", port=0)
"""


def wait_for_failures(log: Path, count: int) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        output = log.read_text(errors="replace")
        if output.count("ValueError: XXX") >= count * 2 and output.count("tool 'boom' failed") >= count:
            return output
        time.sleep(0.05)
    raise AssertionError(f"{count} failures not logged:\n{log.read_text()[:2000]}")


@pytest.mark.anyio
async def test_each_call_logs_the_message_whole_once(tmp_path: Path) -> None:
    script = tmp_path / "big_server.py"
    script.write_text(SCRIPT)
    log = tmp_path / "server.log"
    environment = {key: value for key, value in os.environ.items() if key not in ("MCP_TOKEN", "MCP_PORT")}
    environment["PYTHONPATH"] = str(ROOT)
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-u", str(script)], cwd=tmp_path, stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT, env=environment)
    try:
        url = f"http://127.0.0.1:{wait_for_banner(server, log)['port']}/"
        async with mcp_client(url + "mcp") as client:
            for _ in range(2):
                with anyio.fail_after(60):
                    result = await client.call_tool("boom", {})
                assert result.is_error
        request = urllib.request.Request(url + "tools/boom", json.dumps({}).encode(),
                                         {"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 500
        output = wait_for_failures(log, 3)
    finally:
        stop(server)
    assert output.count("Traceback") == 3
    assert output.count("X" * MESSAGE_CHARS) == 3  # whole once a call: the traceback's last line
    assert output.count("characters in all; a client is sent 65536]") == 3  # the summary line, cut
    assert log.stat().st_size < 3 * (MESSAGE_CHARS + 200_000)  # 6 MB a call before
