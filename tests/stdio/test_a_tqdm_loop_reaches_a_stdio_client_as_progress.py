"""Over stdio too, a tool's tqdm loop reaches the client as ``notifications/progress``.

An app file whose tool runs a 12-step ``tqdm`` loop, served by ``nanohubmcp run APP --transport
stdio``: the official stdio client, calling with a progress callback, gets at least 12 increasing
notifications ending at 12/12 before the result, on the first call and the next; tqdm's own bar
goes to stderr and the protocol stream stays intact. Each app runs in a fresh interpreter, so
tqdm is not imported before the app does, which covers the ways scientists write it:

- tqdm imported at the top of the app;
- the tool imports tqdm itself (``from tqdm.auto import tqdm`` inside the function): the very
  first call, which imports tqdm, reports every step;
- a ``tqdm.auto`` bar ran before any call (module-level code, a notebook cell): tqdm then keeps
  a lock of its own on that class, and the calls' bars of that class report all the same.

Source: MCP 2025-11-25, Basic § Utilities § Progress; Transports § stdio. Issue 17.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stdio_support import official_client, run_command

pytest.importorskip("tqdm")
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

APP = '''
import time

{imports}
from nanohubmcp import MCPServer

server = MCPServer("tqdm-over-stdio")


@server.tool()
def simulate(steps: int = 12) -> str:
    """Simulate step by step, with a tqdm bar."""
    {tool_import}
    for _ in tqdm(range(steps), desc="simulate"):
        time.sleep(0.12)
    return f"simulated {{steps}}"
'''

APPS = {
    "imported by the app": APP.format(imports="from tqdm.auto import tqdm", tool_import=""),
    "imported by the tool": APP.format(imports="", tool_import="from tqdm.auto import tqdm"),
    "a bar ran before any call": APP.format(
        imports="from tqdm.auto import tqdm\nfor _ in tqdm(range(2)):\n    pass", tool_import=""
    ),
}


@pytest.mark.parametrize("app_text", APPS.values(), ids=list(APPS))
async def test_the_official_stdio_client_gets_every_tqdm_step(tmp_path: Path, app_text: str) -> None:
    app = tmp_path / "tqdm_app.py"
    app.write_text(app_text)
    timeline: list[tuple[object, ...]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        timeline.append(("progress", value, total, message))

    async with official_client(run_command(app)) as session:
        for _ in range(2):  # the first call (which may import tqdm) and the next
            timeline.clear()
            result = await session.call_tool("simulate", {"steps": 12}, progress_callback=on_progress)
            timeline.append(("result", result.content[0].text))
            await session.send_ping()  # anything late would have arrived by now
            assert timeline[-1] == ("result", "simulated 12"), timeline
            values = [entry[1] for entry in timeline[:-1]]
            assert len(values) >= 12, timeline
            assert values == sorted(set(values)), values
            assert timeline[-2][1:] == (12, 12, "simulate: 12/12"), timeline
