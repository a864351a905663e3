"""Registering a Rappture tool loads no transport and no Tornado (review r21 L5): an app served over stdio,
``server.call()`` in a notebook and ``nanohubmcp export``'s checks register tools without serving HTTP.
``add_rappture_tool`` imported the ``--workers`` supervisor (``transports.workers``, now ``processes.workers``),
and with it ten ``tornado`` modules, to register a clean-up; the contract "Sources of tools ... reach no transport"
(tests/packaging/test_the_layers_hold.py) keeps such an import out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"

_REGISTER = """
import sys
from nanohubmcp import MCPServer
MCPServer("r").add_rappture_tool(sys.argv[1], rappture="")
serving = ("nanohubmcp.transports", "nanohubmcp.processes")
print(sorted(m for m in sys.modules if m.split(".")[0] == "tornado" or m.startswith(serving)))
"""


def test_registering_a_rappture_tool_imports_no_tornado_and_no_transport() -> None:
    done = subprocess.run([sys.executable, "-c", _REGISTER, str(FERMI)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
