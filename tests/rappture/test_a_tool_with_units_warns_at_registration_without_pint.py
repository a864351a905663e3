"""A Rappture tool whose inputs take numbers with units, registered where pint is not installed:
the operator is warned when it is registered (a fresh-user trial found out only when a client's
call was refused, and the install hint went to the model), and a client giving other units than
the declared ones hears that the server cannot convert them and which units to use; numbers in
the declared units still run.

pint is installed here; the server process is made to lack it the way an interpreter without it
does (``import pint`` raises ImportError; ``sys.modules["pint"] = None``), served over stdio by
``nanohubmcp rappture`` to the official client."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio
import pytest

pytest.importorskip("pint")

ROOT = Path(__file__).resolve().parents[2]
FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"
WITHOUT_PINT = (
    "import sys; sys.path.insert(0, sys.argv[1]); sys.modules['pint'] = None; "
    "from nanohubmcp.cli import main; sys.exit(main(sys.argv[2:]))"
)


@pytest.mark.anyio
async def test_units_without_pint_warn_the_operator_at_start_and_tell_the_client_which_units_work() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = ["-c", WITHOUT_PINT, str(ROOT), "rappture", str(FERMI), "--timeout", "25", "--transport", "stdio"]
    params = StdioServerParameters(command=sys.executable, args=command, cwd=str(ROOT))
    with tempfile.TemporaryFile("w+") as errlog, anyio.fail_after(90):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            refused = await client.call_tool("fermi", {"temperature": "25C", "points": 11})
            ran = await client.call_tool("fermi", {"temperature": "150K", "points": 11})
        errlog.seek(0)
        logged = errlog.read()
    assert "RegistrationWarning: Rappture tool 'fermi': temperature (K), Ef (eV) take numbers with units, " \
           "and pint is not installed" in " ".join(logged.split()), logged
    assert "pip install 'nanohub-mcp[rappture]'" in logged
    assert refused.is_error
    text = refused.content[0].text
    assert "'25C': this server cannot convert units (pint is not installed on it); give the number in K" in text
    assert "pip install" not in text  # the install hint is the operator's, not the model's
    assert not ran.is_error, ran.content
    assert len(ran.structured_content["outputs"]["f12"]["x"]) == 11
