"""A number whose units pint would read as arithmetic (``"1 K**9**9**9"``: 9 to the power 9**9, a
big-integer power) is refused before pint reads it, by a Rappture job tool's pre-check (the job is never
made) and by a quick tool's run alike, and the server goes on answering. pint computed the power, holding
the GIL for hours (SIGTERM ignored): the whole server hung (trial12). A number beyond a double's range
(``"1e999K"``) is refused as not finite; it was written ``infK``.

The server runs in a process of its own, killed afterwards: a server that hangs fails the test in
``WAIT`` seconds, and leaves nothing behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from support import ScriptServer, call_or_kill, script_server, watched_client

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi"
WAIT = 30.0
"""Bound on each answer (a refusal takes milliseconds; pint's power runs for hours)."""

SERVER = '''
import sys
from nanohubmcp import MCPServer

server = MCPServer("rappture-units", job_store="memory")
server.add_rappture_tool(sys.argv[1], async_=True)  # a job tool: its arguments are checked before the job
server.add_rappture_tool(sys.argv[1], name="fermi_now", async_=False)  # checked as the run starts


@server.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


server.run(host="127.0.0.1", port=0)
'''

HOSTILE = [
    ("1 K**9**9**9", "has a power of a power (like K^2^3)"),
    ("1 K^9^9^9", "has a power of a power (like K^2^3)"),
    ("9**9**9 K", "has a power (^ or **) that does not follow a unit name or a closing parenthesis"),
    ("1 (K**9)**99", "has a power whose exponent is not a single digit (-9 to 9)"),
    ("1e999K", "is not a finite number"),
]
ACCEPTED = "write a number and then units: unit names joined by *, / or spaces"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["fermi", "fermi_now"], ids=["job-pre-check", "quick-run"])
async def test_units_pint_would_compute_are_refused_and_the_server_answers_on(tmp_path: Path, tool: str) -> None:
    with script_server(SERVER, str(FERMI), directory=tmp_path) as served:
        async with watched_client(served) as client:
            await _calls(served, client, tool)


async def _calls(served: ScriptServer, client: Any, tool: str) -> None:
    for value, problem in HOSTILE:
        refused = await call_or_kill(served, client, tool, {"temperature": value}, WAIT)
        text = refused.content[0].text
        assert refused.is_error, text
        assert f"Invalid arguments for tool '{tool}': temperature (Temperature): " in text
        assert f'"{value}" {problem}' in text
        assert ACCEPTED in text
        pong = await call_or_kill(served, client, "ping", {}, WAIT)
        assert pong.content[0].text == "pong"
    # units of the accepted shape still convert, and a job starts for them
    started = await call_or_kill(served, client, "fermi", {"temperature": "25 degC", "points": 11}, WAIT)
    assert started.structured_content["status"] == "running", started


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_rest_answers_400_at_once(tmp_path: Path) -> None:
    with script_server(SERVER, str(FERMI), directory=tmp_path) as served:
        for value, problem in HOSTILE:
            try:
                reply = httpx.post(f"{served.url}tools/fermi", json={"temperature": value}, timeout=WAIT)
            except httpx.TimeoutException:
                served.kill()
                pytest.fail(f"POST /tools/fermi {value!r} was not answered in {WAIT:g} s: the server is stuck")
            assert reply.status_code == 400, reply.text
            assert problem in reply.json()["error"]
            assert httpx.post(f"{served.url}tools/ping", json={}, timeout=WAIT).json() == {"result": "pong"}
