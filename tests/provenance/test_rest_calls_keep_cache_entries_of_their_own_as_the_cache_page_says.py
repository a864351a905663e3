"""trial76 F4: a REST call (``POST /tools/NAME``) ran again after ``server.call()`` of the same tool, arguments
and (anonymous) caller had filled the cache, where docs/how-to/cache.md said REST callers and ``server.call()``
share their entries. The route is part of the key because REST's answer is shaped otherwise (the data alone);
REST calls share one entry among themselves, and the page's "What makes two calls the same" list says so."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

from support import serve

from nanohubmcp import MCPServer

ROOT = Path(__file__).resolve().parents[2]


def test_rest_calls_share_an_entry_of_their_own(tmp_path: Path) -> None:
    server = MCPServer("rest-cache", state_dir=str(tmp_path))
    runs: list[float] = []

    @server.tool(cache=True)
    def simulate(temperature: float) -> dict[str, float]:
        """A simulation."""
        runs.append(temperature)
        return {"energy": temperature * 2}

    with serve(server) as url:
        assert server.call("simulate", {"temperature": 1})["_meta"]["io.nanohub/cache"] == {"hit": False}
        assert server.call("simulate", {"temperature": 1})["_meta"]["io.nanohub/cache"] == {"hit": True}
        bodies = []
        for _ in range(2):
            request = urllib.request.Request(f"{url}tools/simulate", data=b'{"temperature": 1}', method="POST",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as response:
                bodies.append(json.loads(response.read()))
    assert bodies[0] == bodies[1] == {"energy": 2.0}
    assert runs == [1, 1]  # once for server.call, once for REST: then each answered from its own entry

    page = (ROOT / "docs" / "how-to" / "cache.md").read_text()
    same = page.split("## What makes two calls the same", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"^- \*\*the route\*\*: a REST call", same, re.MULTILINE), "cache.md does not name the route"
