"""A Sim2L run that fails names the tool as it is served (``name=``, ``--name``), as its argument
errors do, not the notebook's Sim2L name; a cell stopped by ``cell_timeout`` says that it did not finish,
within how many seconds, in which cell, and what raises the limit.

Found by a fresh-user trial (trial 28, T8): ``nanohubmcp sim2l cool2.ipynb --cell-timeout 3 --name
cool_to`` answered ``the Sim2L 'cooling' did not run: CellTimeoutError: ...`` for a run stopped in its
eighth cell, and ``the Sim2L 'cooling' failed in cell 8: ...`` for a cell that raised.

The cell is named in the author's terms: its number among the notebook's code cells, as Jupyter's Run All
numbers them, and its first line. Found by a user trial (trial67 F4): "cell 8" was papermill's execution count,
which counts its injected parameters cell, so the author's 7th code cell was "cell 8".
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.types import CallToolResult
from sim2l.cooling_variant import cooling_variant
from support import mcp_client, serve

from nanohubmcp import MCPServer


def _notebook(tmp_path: Path) -> Path:
    """The cooling Sim2L, whose computing cell (code cell 7; 8 once papermill injected its cell) sleeps for 17
    points and raises for 3, before it
    imports simtool (so a short cell_timeout bounds only cheap cells)."""
    return cooling_variant(
        tmp_path,
        "import time\n"
        "if points == 17:\n"
        "    time.sleep(600)\n"
        "if points == 3:\n"
        "    raise ValueError('three points are too few')\n",
        simtool_late=True,
    )


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_timed_out_or_failed_run_names_the_served_tool(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-errors", state_dir=str(tmp_path / "state"))
    # 5 s: each cell before the sleep takes 0.2 s or less (numpy's and PIL's imports; simtool's, seconds on a
    # busy machine, comes after the sleep)
    server.add_sim2l(str(_notebook(tmp_path)), name="cool_to", cell_timeout=5)

    answers: dict[int, CallToolResult] = {}
    with serve(server) as url, anyio.fail_after(200):
        async with mcp_client(url + "mcp") as client:

            async def call(points: int) -> None:
                answers[points] = await client.call_tool("cool_to", {"points": points})

            # The two runs at once (each in a kernel of its own): the failing one while the other waits out
            # its cell_timeout.
            async with anyio.create_task_group() as both:
                both.start_soon(call, 17)
                both.start_soon(call, 3)
    slow, failed = answers[17], answers[3]
    assert slow.is_error
    assert slow.content[0].text == (  # shaped as a call past tool_timeout is answered
        "the Sim2L tool 'cool_to' did not finish within 5 s in code cell 7 (`import time`) (its "
        "cell_timeout, a cell's limit; raise it "
        "with cell_timeout= or --cell-timeout, inf for no limit); its run was stopped"
    )
    assert failed.is_error
    assert failed.content[0].text == (
        "the Sim2L tool 'cool_to' failed in code cell 7 (`import time`): ValueError: three points are too few")
