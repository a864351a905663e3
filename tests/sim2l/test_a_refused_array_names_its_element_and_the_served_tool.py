"""A Sim2L ``Array`` input simtool refuses is answered naming the first refused element by its index
(``temps[0]``) and quoting that element, not the array: 100,000 elements of ``"1 m"`` (or of 5001, over
the maximum) made a 1.8 MB answer quoting the whole array twice, without saying which element was wrong
(trial13 F9). The message names the tool by the name it is served under (``--name``), not the notebook's
Sim2L name.

The server runs in a process of its own, killed afterwards. No call here runs a notebook (each is refused
before papermill)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from support import call_or_kill, script_server, watched_client

pytest.importorskip("simtool")

ARRAYS = Path(__file__).parent / "data" / "arrays" / "cooling.ipynb"
"""A Sim2L named ``cooling`` whose Array input ``temps`` takes temperatures from 0 to 5000 K."""
WAIT = 120.0
"""Bound on each answer (simtool converts 100,000 strings with units in seconds)."""

SERVER = '''
import sys
from nanohubmcp import MCPServer

server = MCPServer("sim2l-arrays", state_dir=sys.argv[2])
server.add_sim2l(sys.argv[1], name="arrtest")
server.run(host="127.0.0.1", port=0)
'''

CASES: list[tuple[Any, str]] = [
    (["1 m"] * 100_000, "input 'temps[0]': \"1 m\" has units of [length], not of the kind of K"),
    ([5001] * 100_000, "input 'temps[0]': 5001 is out of range: the maximum value is 5000 K"),
    ([[1, 2, 3], [3, "4 K", "1 s"]], "input 'temps[1][2]': \"1 s\" has units of [time], not of the kind of K"),
    ([1, "9**9 K"], "input 'temps[1]': cannot read \"9**9 K\" as a number with units: it has a power"),
]


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.anyio
async def test_a_refused_array_names_its_element_and_the_served_tool(tmp_path: Path) -> None:
    with script_server(SERVER, str(ARRAYS), str(tmp_path / "state"), directory=tmp_path) as served:
        for value, message in CASES:
            reply = httpx.post(f"{served.url}tools/arrtest", json={"temps": value}, timeout=WAIT)
            assert reply.status_code == 400, reply.text[:500]
            assert len(reply.text) < 2000, reply.text[:500]
            error = reply.json()["error"]
            assert error.startswith("Invalid arguments for tool 'arrtest': "), error
            assert message in error
        async with watched_client(served) as client:
            refused = await call_or_kill(served, client, "arrtest", {"temps": [0, 5001]}, WAIT)
            text = refused.content[0].text
            assert refused.is_error, text
            assert text == ("Invalid arguments for tool 'arrtest': input 'temps[1]': 5001 is out of range: the "
                            "maximum value is 5000 K"), text
