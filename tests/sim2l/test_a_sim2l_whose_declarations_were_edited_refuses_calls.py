"""A Sim2L whose ``%%yaml INPUTS`` cell is edited while the server runs refuses calls with a tool error that
names the notebook and says to restart the server, and runs no notebook; undoing the edit serves it again.
Edits to its other cells are new code (test_an_edited_notebook_runs_as_new_code).

Found by a user trial (trial67 F13): an input renamed in the INPUTS, parameters and computing cells while
served was answered with a result that silently ignored the caller's argument (papermill injected the old
name, which nothing read), and the record said the call ran with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from cooling_variant import COOLING
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("papermill")
pytest.importorskip("simtool")


@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_call_after_the_inputs_cell_was_edited_is_refused(tmp_path: Path) -> None:
    notebook = tmp_path / "cooling" / "cooling.ipynb"
    notebook.parent.mkdir()
    original = COOLING.read_text()
    notebook.write_text(original)
    server = MCPServer("sim2l-declared", state_dir=str(tmp_path / "state"))
    runner = server.add_sim2l(str(notebook)).extra["sim2l"]
    cells = json.loads(original)
    for cell in cells["cells"]:  # the author renames the input points to npoints in every cell using it
        cell["source"] = "".join(cell["source"]).replace("points", "npoints")
    with serve(server) as url, anyio.fail_after(200):
        async with mcp_client(url + "mcp") as client:
            notebook.write_text(json.dumps(cells))
            refused = await client.call_tool("cooling", {"rate": 0.02, "points": 3})
            assert refused.is_error
            text = refused.content[0].text
            assert "%%yaml INPUTS or OUTPUTS cell" in text, text
            assert str(notebook) in text, text
            assert "restart the server" in text, text
            assert runner.store.runs == 0

            notebook.write_text(original)  # the edit undone
            ran = await client.call_tool("cooling", {"rate": 0.02, "points": 3})
            assert not ran.is_error, ran.content
            assert len(ran.structured_content["outputs"]["time"]) == 3
