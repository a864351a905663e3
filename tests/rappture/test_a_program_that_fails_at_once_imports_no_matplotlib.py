"""The first call of a Rappture tool whose program fails at once does not import matplotlib: the figures for its
plots are made ahead only once the program has run :data:`~nanohubmcp.sources.rappture.plots.PREPARE_AFTER` s
(a run that lasts is still drawn on figures made while it ran). Each case in a fresh process of its own.

trial64 F6: a first call whose program exited at once took 4.2 s (10.1 s on another start), 1.9 s with
``--no-plot``: the call waited for the plot thread's first matplotlib import, with nothing to plot.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>quick</id><command>python3 @tool/run.py @driver</command></tool>
  <input><number id="seconds"><default>0</default></number></input>
  <output><curve id="c"><about><label>C</label></about></curve></output>
</run>
"""

PROGRAM = """import sys, time, xml.etree.ElementTree as ET
time.sleep(float(ET.parse(sys.argv[1]).getroot().findtext("input/number/current")))
raise SystemExit(2)
"""

CALL = """import json, sys
from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

server = MCPServer("quick")
server.add_rappture_tool(sys.argv[1])
with in_memory(server) as client:
    result = client.call_tool("quick", {"seconds": float(sys.argv[2])})
print(json.dumps([result["isError"], "matplotlib" in sys.modules]))
"""


@pytest.mark.parametrize(("seconds", "imported"), [(0, False), (2, True)], ids=["at-once", "after-2s"])
def test_matplotlib_is_imported_only_for_a_program_that_runs_a_while(
        tmp_path: Path, seconds: float, imported: bool) -> None:
    (tmp_path / "tool.xml").write_text(TOOL)
    (tmp_path / "run.py").write_text(PROGRAM)
    done = subprocess.run([sys.executable, "-c", CALL, str(tmp_path / "tool.xml"), str(seconds)],
                          capture_output=True, text=True, timeout=300, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"[true, {'true' if imported else 'false'}]", done.stderr
