"""Importing ``nanohubmcp`` (and making an ``MCPServer``) loads no ``argparse``: the package lives inside users'
kernels, and a module only a command line needs is loaded by the command line.

Before: the exit grace's module (``processes/exit_grace``, whose ``MCPServer.run`` default the facade reads)
imported ``argparse`` at its top for the ``--exit-grace`` option's type, so every ``import nanohubmcp`` loaded it
(argparse and gettext, 2-8 ms here; review r26 MED-1).
"""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from nanohubmcp import MCPServer
server = MCPServer("probe")

@server.tool()
def add(a: float, b: float) -> float:
    "Sum."
    return a + b

print("argparse" in sys.modules)
"""


def test_importing_nanohubmcp_and_making_a_server_loads_no_argparse() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_the_facades_exit_grace_default_is_the_transports() -> None:
    # serving keeps its own copy of the figure so that building a server imports no transport
    # (tests/rappture/test_registering_a_rappture_tool_loads_no_transport.py)
    from nanohubmcp.processes.exit_grace import DEFAULT_EXIT_GRACE_SECONDS as transports
    from nanohubmcp.serving import DEFAULT_EXIT_GRACE_SECONDS as facades

    assert facades == transports
