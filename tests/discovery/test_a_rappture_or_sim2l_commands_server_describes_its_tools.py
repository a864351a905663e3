"""The server ``nanohubmcp rappture`` / ``nanohubmcp sim2l`` makes describes what it serves: its
instructions, and so the description of its server card, are made from the tool's title and description
(several tools: their names), or are the ``--instructions`` text given.

Found by a user trial (trial39 R6): the card of a Rappture tool's server said "Python functions served with
nanohubmcp", and neither command could say otherwise.
"""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.cli.parser import build_parser
from nanohubmcp.cli.serve import hub_tools_server, rappture_server, sim2l_server
from nanohubmcp.cli.served_text import version_for
from nanohubmcp.transports.discovery import description

ROOT = Path(__file__).parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"
COOLING = ROOT / "examples" / "sim2l" / "cooling"


def test_a_rappture_tools_card_describes_the_tool() -> None:
    server = rappture_server(build_parser().parse_args(["rappture", str(FERMI)]))
    with serve(server) as url:
        card = json.loads(urllib.request.urlopen(url + "mcp/server-card", timeout=10).read())
    # its title and <about> (cut to the registry's 100 characters)
    assert card["description"].startswith("Fermi-Dirac occupancy: Occupancy of electron states near the Fermi level")
    assert len(card["description"]) <= 100
    assert card["description"].endswith("…")
    assert server.core.instructions.endswith("Fermi-Dirac occupancy: a Rappture tool served with nanohubmcp")
    several = rappture_server(build_parser().parse_args(["rappture", str(FERMI), str(FERMI.parent / "outputs")]))
    assert description(several.core) == "Rappture tools served with nanohubmcp: Fermi-Dirac occupancy, Every output"


def test_instructions_given_are_the_description() -> None:
    args = build_parser().parse_args(["rappture", str(FERMI), "--instructions", "Fermi levels.\nMore for clients."])
    assert description(rappture_server(args).core) == "Fermi levels."


@pytest.mark.timeout(120)
def test_a_sim2ls_card_describes_the_notebook() -> None:
    """Trial 68, S2: the description was "cooling: a Sim2L served with nanohubmcp" (what a registry's reader
    browses), though the notebook's DESCRIPTION says what it computes; the version was 1.0.0 for the notebook's
    revision r1."""
    pytest.importorskip("papermill")
    server = sim2l_server(build_parser().parse_args(["sim2l", str(COOLING)]))
    with serve(server) as url:
        card = json.loads(urllib.request.urlopen(url + "mcp/server-card", timeout=10).read())
    assert card["description"] == ("Newton's law of cooling: the temperature of a body in cooler surroundings "
                                   "over time")
    assert card["version"] == "1.0.0"  # its revision r1
    assert server.version == "1.0.0"
    assert server.core.instructions.endswith("cooling: a Sim2L served with nanohubmcp")
    args = build_parser().parse_args(["sim2l", str(COOLING), "--instructions", "Newton cooling."])
    assert description(sim2l_server(args).core) == "Newton cooling."


REVISED = """<?xml version="1.0"?>
<run>
  <tool>
    <title>Drift velocity</title>
    <about>Drift velocity of carriers in a field.

    Uses a field-dependent mobility.</about>
    <version><application><revision>12</revision></application></version>
    <command>python3 @tool/drift.py @driver</command>
  </tool>
  <input><number id="e"><default>1</default></number></input>
</run>
"""


def test_a_tools_revision_is_its_servers_version(tmp_path: Path) -> None:
    """A hub revision (tool.xml's ``<tool><version><application><revision>12``, a Sim2L's ``r2``) is the
    server's version as the registry sorts it, ``12.0.0``; it was 1.0.0 whatever the revision."""
    (tmp_path / "tool.xml").write_text(REVISED)
    server = rappture_server(build_parser().parse_args(["rappture", str(tmp_path / "tool.xml")]))
    assert server.version == "12.0.0"
    assert description(server.core) == "Drift velocity: Drift velocity of carriers in a field."
    assert "Uses a field-dependent mobility." in server.core.instructions
    assert [version_for([r]) for r in ("r2", "007", "2.1", "v2.1.3", "local", "1.x", None)] == [
        "2.0.0", "7.0.0", "2.1.0", "2.1.3", "1.0.0", "1.0.0", "1.0.0"]
    assert version_for(["r2", "r3"]) == "1.0.0"  # several tools: no one revision


@pytest.mark.timeout(120)
def test_a_hub_tools_server_is_described_as_the_tools_own_command_describes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trial76 F6: ``hub-tools fermi`` served a card saying "MCP server fermi (Python functions served with
    nanohubmcp)" and no instructions, while ``nanohubmcp rappture`` of the same tool.xml, and the ``server.json``
    written from it, described the tool."""
    pytest.importorskip("papermill")
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path / "state"))
    notebook = ROOT / "tests" / "sim2l" / "data" / "allkinds" / "allkinds.ipynb"
    apps = tmp_path / "apps"
    (apps / "fermi" / "r12").mkdir(parents=True)
    shutil.copytree(FERMI, apps / "fermi" / "r12" / "rappture")
    (apps / "allkinds" / "r3" / "simtool").mkdir(parents=True)
    shutil.copy(notebook, apps / "allkinds" / "r3" / "simtool" / "allkinds.ipynb")

    def hub(*names: str) -> MCPServer:
        return hub_tools_server(build_parser().parse_args(["hub-tools", *names, "--root", str(apps)]))

    alone = rappture_server(build_parser().parse_args(["rappture", str(apps / "fermi" / "r12" / "rappture")]))
    served = hub("fermi")
    assert (served.core.instructions, served.version) == (alone.core.instructions, alone.version)
    assert description(served.core).startswith("Fermi-Dirac occupancy: ")
    sim2l = sim2l_server(build_parser().parse_args(["sim2l", str(notebook)]))
    served = hub("allkinds")
    assert (served.core.instructions, served.version) == (sim2l.core.instructions, sim2l.version)
    both = hub("fermi", "allkinds")
    assert description(both.core) == (
        "Rappture tools and Sim2Ls served with nanohubmcp: Fermi-Dirac occupancy, allkinds")
