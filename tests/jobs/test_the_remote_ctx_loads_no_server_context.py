"""The ``ctx`` a job gets on another process (a pool process, a Dask worker, a Slurm node) is light.

``RemoteContext`` shares only the ``debug``/``info``/``warning``/``error`` shorthands with the server's
``Context`` (plain functions of ``calls/call_log``), so unpickling it where the job runs loads neither
``Context`` nor the client asks behind it. Checked in a fresh interpreter, so no earlier import of a
test hides it.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = "import json, sys; import nanohubmcp.server.executors.remote; print(json.dumps(sorted(sys.modules)))"

SERVER_SIDE = ("nanohubmcp.server.calls.context", "nanohubmcp.server.asks.context_asks")


def test_importing_the_remote_context_loads_no_server_context() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert "nanohubmcp.server.calls.call_log" in loaded  # the level shorthands came from there
    assert [name for name in SERVER_SIDE if name in loaded] == []
