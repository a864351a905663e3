"""A Sim2L notebook whose code is edited while the server runs is new code: the next call with the
same inputs runs the edited notebook (papermill) instead of answering the old code's stored run, the
stored run's identity names the new notebook digest, and the call's provenance record the new code
hash. A second call of the edited notebook is answered from its own stored run.

Found by a user trial (trial24 F9): the notebook's digest and code hash were taken once, at
registration, so an edited notebook's call was answered with the old notebook's results.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("papermill")
pytest.importorskip("simtool")

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
PROVENANCE = "io.nanohub/provenance"
FORMULA = "np.exp(-rate * time)"


async def _call(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    result = await client.call_tool("cooling", {"rate": 0.02})
    assert not result.is_error, result.content
    record = json.loads((await client.read_resource(result.meta[PROVENANCE])).contents[0].text)
    return result.structured_content, record


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_an_edited_notebook_is_run_again_and_recorded_as_new_code(tmp_path: Path) -> None:
    notebook = tmp_path / "cooling" / "cooling.ipynb"
    notebook.parent.mkdir()
    shutil.copy(COOLING, notebook)
    server = MCPServer("sim2l-edits", state_dir=str(tmp_path / "state"))
    tool = server.add_sim2l(str(notebook))
    runner = tool.extra["sim2l"]

    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            first, first_record = await _call(client)
            assert first["cached"] is False
            again, _ = await _call(client)
            assert again["cached"] is True
            assert runner.store.runs == 1

            text = notebook.read_text()
            assert FORMULA in text
            notebook.write_text(text.replace(FORMULA, "np.exp(-2 * rate * time)"))  # a faster cooling
            edited, edited_record = await _call(client)
            assert edited["cached"] is False, "the edited notebook ran, not the old code's stored run"
            assert runner.store.runs == 2
            assert edited["run"] != first["run"]
            assert edited["outputs"]["final_temperature"] < first["outputs"]["final_temperature"]
            assert edited_record["code"]["hash"] != first_record["code"]["hash"]

            again, again_record = await _call(client)
            assert again["cached"] is True
            assert again["run"] == edited["run"]
            assert again_record["code"]["hash"] == edited_record["code"]["hash"]
            assert runner.store.runs == 2

    stored = {run: json.loads(Path(runner.store.path(run), "run.json").read_text())["identity"]["notebook"]
              for run in (first["run"], edited["run"])}
    assert stored[first["run"]] != stored[edited["run"]]
    assert stored[edited["run"]] == runner.code.current().detail["digest"]
