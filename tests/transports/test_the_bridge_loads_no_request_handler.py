"""The stdio↔HTTP bridge is a client: importing it loads no part of the server's HTTP side.

It names the binding's headers (``Mcp-Session-Id``, ``MCP-Protocol-Version``, ...) through
``transports/headers``, which imports nothing but the standard library, rather than through the
request handler every route shares (``transports/base``: Tornado's ``web`` module, the connection
seam). Checked in a fresh interpreter, so no earlier import of a test hides it.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = "import json, sys; import nanohubmcp.transports.bridge; print(json.dumps(sorted(sys.modules)))"

SERVER_SIDE = ("tornado.web", "nanohubmcp.transports.base", "nanohubmcp.server.connection")


def test_importing_the_bridge_loads_no_request_handler() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert "nanohubmcp.transports.headers" in loaded  # the names came from there
    assert [name for name in SERVER_SIDE if name in loaded] == []
