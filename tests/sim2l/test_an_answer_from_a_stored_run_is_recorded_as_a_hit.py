"""A Sim2L call answered from a stored run is recorded as a hit naming the record of the call that ran the
notebook (``cache: "hit"``, ``cached_from``), also by a server started again on the same state directory;
the call that ran it is recorded as a miss. Its RO-Crate then says the result came from that record.

Found by a user trial (trial39 R12): such an answer's record read ``cache: null`` and its crate "Ran on
executor worker-pool", as if papermill had run then and there. The call that ran it read ``cache: null``, as
a tool without a cache's (trial67 F2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

COOLING = Path(__file__).parents[2] / "examples" / "sim2l" / "cooling"
PROVENANCE = "io.nanohub/provenance"
INPUTS = {"rate": 0, "points": 3}


async def _call(session: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    result = await session.call_tool("cooling", INPUTS)
    assert not result.is_error, result.content
    record = json.loads((await session.read_resource(result.meta[PROVENANCE])).contents[0].text)
    return result.structured_content, record


@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_stored_runs_answer_names_the_record_that_ran_it(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    state = tmp_path / "state"
    server = MCPServer("cooling", state_dir=str(state))
    server.add_sim2l(COOLING)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            ran, first = await _call(session)
            again, second = await _call(session)
    assert (ran["cached"], again["cached"]) == (False, True)
    assert first["cache"] == "miss"  # (trial67 F2: it was null, as for a tool without a cache)
    assert first["cached_from"] is None
    assert second["cache"] == "hit"
    assert second["cached_from"] == first["uri"]
    crate = server.export_provenance(second["uri"], tmp_path / "crate")
    text = json.dumps(json.loads((Path(crate) / "ro-crate-metadata.json").read_text()))
    assert first["uri"] in text

    restarted = MCPServer("cooling", state_dir=str(state))
    restarted.add_sim2l(COOLING)
    with serve(restarted) as url:
        async with mcp_client(url + "mcp") as session:
            _, later = await _call(session)
    assert later["cache"] == "hit"
    assert later["cached_from"] == first["uri"]
