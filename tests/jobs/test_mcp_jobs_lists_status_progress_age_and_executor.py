"""``%mcp jobs`` in a notebook lists the jobs of ``--async`` tools with their status, progress,
age and executor; ``%%mcp_tool --async --executor processes`` runs a cell's job in another
process; ``--executor`` without ``--async`` is refused in one line.

Issue 16: ``%mcp jobs`` lists jobs (status, progress, age, executor).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import FAULTHANDLER

SCRIPT = r"""
import contextlib, io, json, os, sys, time, urllib.request
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
def ok(code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = shell.run_cell(code)
    assert result.success, (code, result.error_before_exec or result.error_in_exec)
    return result.result, out.getvalue()

marker = sys.argv[1]
ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
print(json.dumps({"empty": ok("%mcp jobs")[1]}))
ok("%%mcp_tool --async\ndef halfway(ctx, marker: str) -> str:\n    'Half, then wait.'\n    import os, time\n"
   "    ctx.report_progress(2, 4, 'half done')\n"
   "    while not os.path.exists(marker):\n        time.sleep(0.02)\n    return 'finished'\n")
ok("%%mcp_tool --async --executor processes\ndef elsewhere() -> int:\n    'Its pid.'\n"
   "    import os\n    return os.getpid()\n")
refused = shell.run_cell("%%mcp_tool --executor dask\ndef nope() -> int:\n    return 1\n")
base = ok("%mcp url")[0][: -len("mcp")]

def rest(name, arguments):
    request = urllib.request.Request(base + "tools/" + name, data=json.dumps(arguments).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())

held = rest("halfway", {"marker": marker})["job_id"]
other = rest("elsewhere", {})["job_id"]
deadline = time.monotonic() + 60
while True:
    a, b = rest("get_job_result", {"job_id": held}), rest("get_job_result", {"job_id": other})
    listing = ok("%mcp jobs")[1]
    if b["status"] == "done" and "half done" in listing:
        break
    assert time.monotonic() < deadline, (a, b, listing)
    time.sleep(0.05)
open(marker, "w").close()
ok("%unload_ext nanohubmcp")
print(json.dumps({"listing": listing, "pid": b["result"], "kernel": os.getpid(), "refused": refused.success}))
"""


def test_mcp_jobs_lists_the_jobs_of_a_notebook(tmp_path: Path) -> None:
    env = {"IPYTHONDIR": str(tmp_path), "PATH": "/usr/bin:/bin", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"),
           "MCP_TOKEN": "", **FAULTHANDLER}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "go")], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "No jobs yet" in json.loads(lines[0])["empty"]
    final = json.loads(lines[-1])
    # The job's progress bar is drawn (a widget's repr on this shell's stdout) from the event loop's
    # thread at its first report; redirect_stdout is process-wide, so the drawing may land inside
    # the capture of a `%mcp jobs` cell: the listing is what follows its header line.
    lines = final["listing"].splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["job"])
    assert all(line.startswith(("HBox(", "max=", "Label(")) for line in lines[:header]), lines[:header]
    listing = lines[header:]
    assert listing[0].split() == ["job", "tool", "status", "age", "executor", "progress"]
    halfway = next(line for line in listing if " halfway " in line)
    assert halfway.split()[2] == "working"
    assert halfway.split()[4] == "threads"
    assert "2/4 (50%) half done" in halfway
    elsewhere = next(line for line in listing if " elsewhere " in line)
    assert elsewhere.split()[2] == "completed"
    assert elsewhere.split()[4] == "processes"
    assert final["pid"] != final["kernel"]  # the processes executor ran the cell's function elsewhere
    assert final["refused"] is False
    assert "--executor is for job tools; add --async" in done.stderr
