"""A served process imports what a first ``tools/call`` needs while it waits idle after start (issue 28).

The first ``tools/call`` after a server's start imported ~140 modules (the tools handler, the call machinery, the
provenance and result cache layers, the schema compiler): ~160 M instructions against ~1-2 M for a steady call,
paid as an assistant's first call's latency. A process :meth:`run` serves now imports them on a thread once it has
listened a moment (``processes.warm_up``). The probe: a script served with ``run()``, a middleware printing which
of them are imported at each ``ping`` and what a ``tools/call`` imported; pinged until they are, then called once.
Before: never imported until the first call, which imported them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from nanohubmcp.processes.warm_up import FIRST_CALL_MODULES
from tests.support import post_rpc

SCRIPT = textwrap.dedent("""
    import json, sys
    from nanohubmcp import MCPServer

    server = MCPServer("warm")
    watched = sys.argv[1:]

    @server.tool()
    def add(a: float, b: float) -> float:
        "Sum of two numbers."
        return a + b

    @server.middleware
    async def probe(request, call_next):
        before = set(sys.modules)
        result = await call_next(request)
        if request.method == "ping":
            print(json.dumps({"missing": [name for name in watched if name not in sys.modules]}), flush=True)
        elif request.method == "tools/call":
            ours = sorted(name for name in set(sys.modules) - before if name.startswith("nanohubmcp"))
            print(json.dumps({"call imported": ours}), flush=True)
        return result

    server.run(host="127.0.0.1", port=0)
""")

OURS = [name for name in FIRST_CALL_MODULES if name.startswith("nanohubmcp")]


def test_a_first_call_after_an_idle_moment_imports_nothing_of_ours(tmp_path: Path) -> None:
    script = tmp_path / "served.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}  # (no job store of another run's)
    child = subprocess.Popen([sys.executable, str(script), *OURS], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None
        banner = child.stdout.readline()  # "MCP Server 'warm' v1.0.0 listening on 127.0.0.1:PORT", then more lines

        def printed() -> dict[str, list[str]]:  # the probe's next line (past the banner's)
            assert child.stdout is not None
            line = child.stdout.readline()
            while not line.startswith("{"):
                assert line, "the server ended"
                line = child.stdout.readline()
            return json.loads(line)

        url = f"http://127.0.0.1:{int(banner.rsplit(':', 1)[1])}/"
        deadline = time.monotonic() + 30
        missing = OURS
        while missing and time.monotonic() < deadline:  # until the warm-up imported them (~1 s after listening)
            post_rpc(url, "ping")
            missing = printed()["missing"]
        assert missing == [], f"not imported 30 s after start: {missing}"
        answer = post_rpc(url, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert answer["result"]["content"][0]["text"] == "3.0", answer
        assert printed() == {"call imported": []}
    finally:
        child.terminate()
        child.communicate(timeout=30)
