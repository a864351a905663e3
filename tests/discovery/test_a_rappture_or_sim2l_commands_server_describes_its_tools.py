"""The server ``nanohubmcp rappture`` / ``nanohubmcp sim2l`` makes describes what it serves: its
instructions, and so the description of its server card, are made from the tool's title and description
(several tools: their names), or are the ``--instructions`` text given.

Found by a user trial (trial39 R6): the card of a Rappture tool's server said "Python functions served with
nanohubmcp", and neither command could say otherwise.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from support import serve

from nanohubmcp.cli.parser import build_parser
from nanohubmcp.cli.serve import rappture_server, sim2l_server
from nanohubmcp.transports.discovery import description

ROOT = Path(__file__).parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"
COOLING = ROOT / "examples" / "sim2l" / "cooling"


def test_a_rappture_tools_card_describes_the_tool() -> None:
    server = rappture_server(build_parser().parse_args(["rappture", str(FERMI)]))
    with serve(server) as url:
        card = json.loads(urllib.request.urlopen(url + "mcp/server-card", timeout=10).read())
    assert card["description"] == "Fermi-Dirac occupancy: a Rappture tool served with nanohubmcp"
    assert "Occupancy of electron states" in server.core.instructions  # its <about>, for clients
    several = rappture_server(build_parser().parse_args(["rappture", str(FERMI), str(FERMI.parent / "outputs")]))
    assert description(several.core) == "Rappture tools served with nanohubmcp: Fermi-Dirac occupancy, Every output"


def test_instructions_given_are_the_description() -> None:
    args = build_parser().parse_args(["rappture", str(FERMI), "--instructions", "Fermi levels.\nMore for clients."])
    assert description(rappture_server(args).core) == "Fermi levels."


@pytest.mark.timeout(120)
def test_a_sim2ls_card_describes_the_notebook() -> None:
    pytest.importorskip("papermill")
    server = sim2l_server(build_parser().parse_args(["sim2l", str(COOLING)]))
    assert description(server.core).startswith("cooling: a Sim2L served with nanohubmcp")
    args = build_parser().parse_args(["sim2l", str(COOLING), "--instructions", "Newton cooling."])
    assert description(sim2l_server(args).core) == "Newton cooling."
