"""``nanohubmcp rappture TOOL.xml`` serves a Rappture tool (here over stdio, to the official client,
the program's output never reaching the protocol stream), and ``%mcp rappture PATH`` does it in a
notebook kernel's server. Issue 24."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from support import official_client

from nanohubmcp.cli import main

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_rappture_command_serves_a_tool_over_stdio() -> None:
    command = [sys.executable, "-m", "nanohubmcp", "rappture", str(FERMI), "--timeout", "25", "--transport", "stdio"]
    with anyio.fail_after(90):
        async with official_client(command) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("fermi", {"temperature": 150, "points": 11})
    assert [t.name for t in tools] == ["fermi"]
    assert "up to 25 s" in (tools[0].description or "")  # (over 30 s would make it a job tool)
    assert not result.is_error, result.content
    assert len(result.structured_content["outputs"]["f12"]["x"]) == 11


def test_the_rappture_command_refuses_a_name_for_several_tools(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:  # a usage error: argparse's usage line and exit status 2
        main(["rappture", str(FERMI), str(FERMI), "--name", "x"])
    assert refused.value.code == 2
    assert "--name names one tool" in capsys.readouterr().err
    assert main(["rappture", "no/such/tool.xml"]) == 1
    assert "no such file" in capsys.readouterr().err


def test_the_magic_serves_a_rappture_tool_in_the_kernel_server() -> None:
    from IPython.core.error import UsageError
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "nanohubmcp")
    shell.run_line_magic("config", "NanohubMCP.port = 0")  # not 8000, which the README's example may hold
    try:
        shell.run_line_magic("mcp", f"rappture {FERMI} --name fermi_nb --timeout 30")
        session_server = shell.run_line_magic("mcp", "url")
        assert session_server
        result = shell.run_line_magic("mcp", 'call fermi_nb {"temperature": "-73.15C", "points": 11}')
        assert not result.is_error, result
        assert result.structured["outputs"]["kT"]["value"] == pytest.approx(8.617333262e-5 * 200)
        with pytest.raises(UsageError, match=r"give one tool\.xml"):
            shell.run_line_magic("mcp", "rappture")
        with pytest.raises(UsageError, match="--timeout takes a number"):
            shell.run_line_magic("mcp", f"rappture {FERMI} --timeout soon")
        with pytest.raises(UsageError, match="no such file"):
            shell.run_line_magic("mcp", "rappture missing.xml")
    finally:
        shell.run_line_magic("mcp", "stop")
