"""A Rappture call's provenance record gives the tool's own version, not nanohub-mcp's (trial 67, F1).

The record (and the RO-Crate made from it) said ``"version": "1.0.0.dev0"`` for a tool.xml that states no
version: that was nanohubmcp's own, the module running the program. Rappture's viewers take a tool's revision
from ``tool.version.application.revision`` (what a hub's installation writes); a tool.xml stating it gives it, one
stating none gives none (the crate then has no version property), and the packages list stays ours.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer, __version__
from nanohubmcp.server.provenance.code_facts import code_of

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"
REVISION = "<version><identifier>1.4</identifier><application><revision>42</revision></application></version>"


@pytest.mark.parametrize(("version", "stated"), [("", None), (REVISION, "42"), ("<version>2.1</version>", "2.1")])
def test_the_record_gives_the_version_tool_xml_states(tmp_path: Path, version: str, stated: str | None) -> None:
    text = FERMI.read_text().replace("<tool>", "<tool>" + version, 1)
    (tmp_path / "tool.xml").write_text(text)
    (tmp_path / "fermi.py").write_text((FERMI.parent / "fermi.py").read_text())
    tool = MCPServer("tools", job_store="memory").add_rappture_tool(str(tmp_path / "tool.xml"), name="fermi")
    code = code_of(tool)
    assert code["version"] == stated != __version__
    assert "nanohub-mcp" in code["packages"]
