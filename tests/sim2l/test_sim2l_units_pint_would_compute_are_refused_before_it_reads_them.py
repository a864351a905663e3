"""A Sim2L number whose text pint would read as arithmetic (``{"initial_temperature": "9**9**9 K"}``: 9 to the
power 9**9, a big-integer power) is refused before pint reads it, as invalid arguments naming the input and
saying what is accepted, and the server goes on answering. pint computed the power, holding the GIL for hours
(SIGTERM ignored): the whole server hung (trial12). An Array's strings with units are held to the same shape;
a number beyond a double's range (``"1e999K"``) is refused as not finite (it was read as ``inf K``); units of
another kind, or unknown ones, say what the input is in, not pint's own text.

The server runs in a process of its own, killed afterwards: a server that hangs fails the test in ``WAIT``
seconds, and leaves nothing behind. No call here runs a notebook (each is refused before papermill)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from support import ROOT, ScriptServer, call_or_kill, script_server, watched_client

pytest.importorskip("simtool")

COOLING = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
WAIT = 60.0
"""Bound on each answer (a refusal takes milliseconds; pint's power runs for hours)."""

SERVER = '''
import sys
from nanohubmcp import MCPServer

server = MCPServer("sim2l-units", state_dir=sys.argv[3])
server.add_sim2l(sys.argv[1])
server.add_sim2l(sys.argv[2])


@server.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


server.run(host="127.0.0.1", port=0)
'''

ACCEPTED = "write a number and then units: unit names joined by *, / or spaces"

CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "cooling",
        {"initial_temperature": "9**9**9 K"},
        "input 'initial_temperature': cannot read \"9**9**9 K\" as a number with units: it has a power (^ or **) "
        "that does not follow a unit name or a closing parenthesis; " + ACCEPTED,
    ),
    ("cooling", {"initial_temperature": "1 K**9**9**9"}, "it has a power of a power (like K^2^3)"),
    ("cooling", {"initial_temperature": "1 K^9^9^9"}, "it has a power of a power (like K^2^3)"),
    ("cooling", {"initial_temperature": "1e999K"}, "cannot read \"1e999K\" as a number with units: it is not a finite"),
    ("cooling", {"ambient_temperature": "300 K" + " " * 300}, "is 305 characters long; a number with units is at most"),
    ("spots", {"positions": [["1 nm", 1], ["2 nm", "3 nm**9**9"]]},
     "input 'positions[1][1]': cannot read \"3 nm**9**9\""),
    # pint's own errors, said in the input's terms
    (
        "cooling",
        {"initial_temperature": "3 m"},
        "input 'initial_temperature': \"3 m\" has units of [length], not of the kind of K; give a number in K, or "
        "a string with units of the same kind (like \"370 K\")",
    ),
    (
        "cooling",
        {"initial_temperature": "3 furlongs_x"},
        "input 'initial_temperature': \"3 furlongs_x\" has a unit pint does not know ('furlongs_x'); the input is "
        "in K: give a number in K",
    ),
    # the real cause, not a bare "cannot read" (trial13 F5)
    (
        "cooling",
        {"initial_temperature": "1 " + "YK/K*" * 50 + "K"},
        "input 'initial_temperature': \"1 YK/K*YK/K*YK/K*YK/K*YK/K*YK/K*YK/K*YK/…\" cannot be converted to K: the "
        "conversion factor of its units is beyond a double's range",
    ),
    (
        "cooling",
        {"initial_temperature": "100 \u212a"},
        "input 'initial_temperature': \"100 \u212a\" has a unit pint does not know ('\u212a'; '\u212a' is U+212A "
        "KELVIN SIGN, not the letter K: write K)",
    ),
    ("cooling", {"initial_temperature": "1 K^0"}, "it has a power 0 (which leaves no unit: leave the unit out)"),
    # ASCII digits only, as every number setting (trial51 F10 f: "does not start with a number"; "1\u0663 K" read as 13)
    (
        "cooling",
        {"initial_temperature": "1\u0663 K"},
        "input 'initial_temperature': cannot read \"1\u0663 K\" as a number with units: it is written with digits "
        "that are not ASCII; write it in ASCII digits: 13 K (the input is in K)",
    ),
    ("cooling", {"initial_temperature": "0x10 K"}, "it is not a number: 0x10 is hexadecimal, which is not read; "
                                                    "write the number in decimal digits"),
]


def _spots(directory: Path) -> Path:
    """A Sim2L whose Array input takes strings with units."""
    notebook = new_notebook()
    notebook.cells = [
        new_code_cell("%load_ext yamlmagic"),
        new_code_cell("%%yaml INPUTS\npositions:\n    type: Array\n    units: nm\n    value: [1.0]"),
        new_code_cell("%%yaml OUTPUTS\ncount:\n    type: Integer"),
        new_code_cell("positions = [1.0]"),
    ]
    notebook.cells[3].metadata["tags"] = ["parameters"]
    path = directory / "spots.ipynb"
    nbformat.write(notebook, path)
    return path


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_unit_text_pint_would_compute_is_refused_and_the_server_answers_on(tmp_path: Path) -> None:
    args = (str(COOLING), str(_spots(tmp_path)), str(tmp_path / "state"))
    with script_server(SERVER, *args, directory=tmp_path) as served:
        async with watched_client(served) as client:
            await _calls(served, client)


async def _calls(served: ScriptServer, client: Any) -> None:
    for tool, arguments, message in CASES:
        refused = await call_or_kill(served, client, tool, arguments, WAIT)
        text = refused.content[0].text
        assert refused.is_error, text
        assert text.startswith(f"Invalid arguments for tool '{tool}': "), text
        assert message in text
        pong = await call_or_kill(served, client, "ping", {}, WAIT)
        assert pong.content[0].text == "pong"
