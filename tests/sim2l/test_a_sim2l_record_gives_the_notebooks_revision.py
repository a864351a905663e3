"""A Sim2L tool's provenance code facts give the notebook's own revision as its version (``simTool_info``
``revision``), and none for a notebook that states none: never nanohub-mcp's version.

Found by a user trial (trial67 F1): a Sim2L call's record and RO-Crate said the notebook was at ``1.0.0.dev0``,
the version of nanohubmcp, whose runner calls papermill.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cooling_variant import COOLING

from nanohubmcp import MCPServer, __version__
from nanohubmcp.server.provenance.code_facts import code_of

pytest.importorskip("papermill")
pytest.importorskip("simtool")


def test_the_version_is_the_notebooks_revision_or_none(tmp_path: Path) -> None:
    unstated = json.loads(COOLING.read_text())
    del unstated["metadata"]["simTool_info"]["revision"]
    (tmp_path / "plain").mkdir()
    plain = tmp_path / "plain" / "cooling.ipynb"
    plain.write_text(json.dumps(unstated))
    server = MCPServer("sim2l-versions", state_dir=str(tmp_path / "state"))
    stated = server.add_sim2l(str(COOLING), name="stated")
    none = server.add_sim2l(str(plain), name="unstated")
    assert code_of(stated)["version"] == "r1"
    assert code_of(none)["version"] is None
    assert __version__ not in (code_of(stated)["version"], code_of(none)["version"])
