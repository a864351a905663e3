"""A number finite as written but beyond a double's range once converted to its input's units
(``"1e308 km"`` for an input in m, ``"1e300 Ym*Ym/m"``) is refused at once, naming the units it
overflows in: by a quick tool (before its program runs), by a job tool's pre-check (no job is made) and
over REST (400). The driver was written ``infm`` on an input without a ``<max>``, and the call failed
late in the program with ``bad value 'infm'`` (trial13 F10); a program that did not convert again
computed with inf."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from support import call_or_kill, script_server, watched_client

pytest.importorskip("pint")

WAIT = 30.0
"""Bound on each answer (a refusal takes milliseconds)."""

TOOL_XML = """<?xml version="1.0"?>
<run>
  <tool><title>Echo</title><about>Echoes a length.</about><command>python @tool/echo.py @driver</command></tool>
  <input>
    <number id="length"><about><label>Length</label></about><units>m</units><default>1m</default></number>
  </input>
  <output><string id="out"><about><label>Out</label></about></string></output>
</run>
"""

PROGRAM = """import sys
import Rappture
io = Rappture.library(sys.argv[1])
io.put("output.string(out).current", io.get("input.number(length).current"))
Rappture.result(io)
"""

SERVER = '''
import sys
from nanohubmcp import MCPServer

server = MCPServer("rappture-overflow", job_store="memory")
server.add_rappture_tool(sys.argv[1], name="echo_job", async_=True)
server.add_rappture_tool(sys.argv[1], name="echo", async_=False)
server.run(host="127.0.0.1", port=0)
'''

OVERFLOWING = [
    ("1e308 km", "1e+308 km is out of range once converted to m: beyond a double's range"),
    ("-1e308 km", "-1e+308 km is out of range once converted to m: beyond a double's range"),
    ("1e300 Ym*Ym/m", "1e+300 Ym*Ym/m is out of range once converted to m: beyond a double's range"),
]


def _tool(directory: Path) -> Path:
    folder = directory / "echo"
    folder.mkdir()
    (folder / "tool.xml").write_text(TOOL_XML)
    (folder / "echo.py").write_text(PROGRAM)
    return folder / "tool.xml"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_number_infinite_once_converted_is_refused_by_quick_and_job_tools(tmp_path: Path) -> None:
    with script_server(SERVER, str(_tool(tmp_path)), directory=tmp_path) as served:
        async with watched_client(served) as client:
            for tool in ("echo", "echo_job"):
                for value, problem in OVERFLOWING:
                    refused: Any = await call_or_kill(served, client, tool, {"length": value}, WAIT)
                    text = refused.content[0].text
                    assert refused.is_error, text
                    assert f"Invalid arguments for tool '{tool}': length (Length): {problem}" in text
                    assert "infm" not in text
            # a large number that stays finite still reaches the program, converted
            ran: Any = await call_or_kill(served, client, "echo", {"length": "1e300 km"}, WAIT)
            assert not ran.is_error, ran
            assert "1e+303m" in str(ran.content), ran.content


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_rest_answers_400_for_a_number_infinite_once_converted(tmp_path: Path) -> None:
    with script_server(SERVER, str(_tool(tmp_path)), directory=tmp_path) as served:
        for tool in ("echo", "echo_job"):
            for value, problem in OVERFLOWING:
                reply = httpx.post(f"{served.url}tools/{tool}", json={"length": value}, timeout=WAIT)
                assert reply.status_code == 400, reply.text
                assert problem in reply.json()["error"]
