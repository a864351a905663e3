"""A Sim2L number out of range sent as a plain number is refused in the words the same value sent with units gets
(``input 'initial_temperature': 5000 is out of range: the maximum value is 2000 K``): the real ``nanohubmcp sim2l``
server, the official client; no run is made for it.

trial64 F1: ``{"initial_temperature": 5000}`` was ``arguments.initial_temperature: 5000 is greater than the maximum of
2000.0`` (the schema's words: no unit, and "2000.0" where the text form says "2000 K").
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from sim2l.cooling_variant import COOLING
from support import command_server, mcp_client

SAID = {
    5000: "Invalid arguments for tool 'cooling': input 'initial_temperature': 5000 is out of range: the maximum value "
          "is 2000 K",
    "5000 K": "Invalid arguments for tool 'cooling': input 'initial_temperature': \"5000 K\" is out of range: the "
              "maximum value is 2000 K",
    -1: "Invalid arguments for tool 'cooling': input 'initial_temperature': -1 is out of range: the minimum value is "
        "0 K",
}


@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_the_plain_and_the_text_form_get_one_message(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    state = tmp_path / "state"
    with command_server("sim2l", str(COOLING), "--port", "0", "--state-dir", str(state),
                        log=tmp_path / "server.log", cwd=tmp_path) as served, anyio.fail_after(180):
        async with mcp_client(served.url + "mcp") as client:
            for value, said in SAID.items():
                result = await client.call_tool("cooling", {"initial_temperature": value})
                assert result.is_error, value
                assert result.content[0].text == said  # type: ignore[union-attr]
            points = await client.call_tool("cooling", {"points": 1})
            assert points.content[0].text == (  # type: ignore[union-attr]
                "Invalid arguments for tool 'cooling': input 'points': 1 is out of range: the minimum value is 2")
    assert not list(state.rglob("run.json"))  # no run was made
