"""A notebook kernel shut down during a call (JupyterLab's "Shut Down Kernel": a ``shutdown_request``) answers
the call that the server is stopping (REST: 503) and writes its provenance record, ``failed`` with "the
server stopped while this call ran", before the kernel's process ends, as ``%mcp stop`` does. Real kernel
(jupyter_client: the shutdown_request alone, and a kernel manager's shutdown, which sends SIGTERM 2.5 s after
it), a real REST call over HTTP, the records read back with ``nanohubmcp provenance list``.

Found by a fresh-user trial (trial53 F5): the call was answered 503, but its record was never written (the
writer's own exit write ran before the extension stopped the server); under a kernel manager the stop (about
2 s of drain, then the connections' closing) outlasted the 2.5 s before its SIGTERM: no answer, no record.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel, server_url
from support import wait_until

pytestmark = pytest.mark.slow


def _nap(marker: Path) -> str:
    return f'''%%mcp_tool
def nap(seconds: float) -> str:
    """Sleeps."""
    import pathlib, time
    pathlib.Path({str(marker)!r}).write_text("running")
    time.sleep(seconds)
    return "rested"
'''


def _post(url: str, answers: list[Any]) -> None:
    request = urllib.request.Request(url, data=json.dumps({"seconds": 30}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.append((response.status, response.read().decode()))
    except urllib.error.HTTPError as exc:
        answers.append((exc.code, exc.read().decode()))
    except OSError as exc:
        answers.append((None, repr(exc)))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["shutdown_request", "kernel manager"])
def test_a_call_the_kernels_shutdown_cuts_short_is_recorded(start_kernel: Any, tmp_path: Path, how: str) -> None:
    state = tmp_path / "state"
    marker = tmp_path / "nap-running"
    live: LiveKernel = start_kernel(NANOHUBMCP_STATE_DIR=str(state), MCP_TOKEN="")
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    live.run_ok(_nap(marker))
    base = server_url(live).removesuffix("mcp")
    answers: list[Any] = []
    caller = threading.Thread(target=_post, args=(f"{base}tools/nap", answers), daemon=True)
    caller.start()
    wait_until(marker.exists, "the call running", 60)
    if how == "shutdown_request":  # the message alone, on the control channel (what the trial sent)
        live.client.shutdown()
        wait_until(lambda: not live.manager.is_alive(), "the kernel's process ended", 60)
    else:  # a Jupyter server's way (JupyterLab's "Shut Down Kernel"): the request, SIGTERM 2.5 s later
        live.shutdown()
    caller.join(60)
    assert len(answers) == 1, answers
    assert answers[0][0] == 503, answers
    assert "The server is stopping" in answers[0][1], answers
    listed = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if " nap " in line]
    assert len(lines) == 1, listed.stdout
    assert "failed" in lines[0], listed.stdout
    assert "the server stopped while this call ran" in lines[0], listed.stdout
