"""A Rappture run past the tool's own time limit (``timeout=``, ``--timeout``; else ``<limits><cputime>``) is a
timeout, answered as a call past the server's ``tool_timeout`` is: ``ToolTimeout``, REST 504 (it was 500, a plain
tool error), over MCP an error result saying which limit ran out, what raises it and that the run was stopped.

And ``timeout=inf`` (``--timeout inf``, a number past any wait) follows the one rule of durations
(``protocol.seconds.limit_seconds``): no limit of ours, where it was refused. The tool runs through the hub's
``rappture -execute`` (the stand-in of ``hub_path``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import anyio
import pytest
from json_posts import post_json
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.sources.rappture import load_rappture_tool

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"
INPUTS = Path(__file__).parent / "tools" / "inputs" / "tool.xml"  # <limits><cputime>20</cputime>
HEAD = ("Rappture tool 'fermi' did not finish within 1 s (its timeout; raise it with timeout= or --timeout, "
        "inf for no limit); its run was stopped")


def test_a_run_past_its_timeout_is_504_over_rest_and_says_so_over_mcp(hub_path: Path) -> None:
    server = MCPServer("rappture-timeout")
    server.add_rappture_tool(FERMI, timeout=1, plot=False)
    with serve(server) as url:
        status, body = post_json(f"{url}tools/fermi", {"mode": "hang"}, 60)

        async def mcp_call() -> Any:
            with anyio.fail_after(60):
                async with mcp_client(url + "mcp") as client:
                    return await client.call_tool("fermi", {"mode": "hang"})

        with anyio.from_thread.start_blocking_portal() as portal:
            result = portal.call(mcp_call)
    assert status == 504, (status, body)  # was 500
    assert body["error"].startswith(HEAD), body
    assert result.is_error
    assert result.content[0].text.startswith(HEAD), result.content


def test_a_limit_from_tool_xml_is_named_as_such(hub_path: Path) -> None:
    declared = load_rappture_tool(INPUTS)
    assert (declared.limit, declared.limit_given) == (20.0, False)
    assert declared.timeout_message() == (
        "Rappture tool 'every_input' did not finish within 20 s (its tool.xml's <limits><cputime>; raise it with "
        "timeout= or --timeout, inf for no limit); its run was stopped")


@pytest.mark.parametrize("timeout", [math.inf, 1e308, 10**400], ids=repr)
def test_a_timeout_of_inf_is_no_limit(hub_path: Path, timeout: Any) -> None:
    server = MCPServer("rappture-no-limit")
    record = server.add_rappture_tool(INPUTS, timeout=timeout)  # tool.xml says 20 s: timeout= stands in
    assert "A Rappture tool; a run has no time limit." in record.description
    tool = load_rappture_tool(INPUTS, timeout=timeout)
    assert tool.limit == math.inf


def test_a_timeout_of_inf_runs_the_tool(hub_path: Path) -> None:
    tool = load_rappture_tool(FERMI, timeout=math.inf)
    result = tool.run({"points": 11}, plot=False).to_wire()
    assert not result["isError"], result
    assert len(result["structuredContent"]["outputs"]["f12"]["x"]) == 11


def test_the_command_line_and_the_notebook_line_take_inf() -> None:
    from nanohubmcp.cli.parser import build_parser
    from nanohubmcp.jupyter.source_lines import parse_source_line

    args = build_parser().parse_args(["rappture", str(FERMI), "--timeout", "inf"])
    assert args.timeout == math.inf  # (None would be the tool's own limit)
    assert build_parser().parse_args(["rappture", str(FERMI), "--timeout", "5"]).timeout == 5.0
    line = parse_source_line("rappture", "tool.xml --timeout inf")
    assert line.options == {"timeout": math.inf}
    assert line.code() == "server.add_rappture_tool('tool.xml', timeout=float('inf'))"  # an exported script's line
