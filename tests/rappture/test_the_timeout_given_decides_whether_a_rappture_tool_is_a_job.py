"""A Rappture tool is a job when the time limit in force allows a run longer than a proxy waits (30 s): the
``timeout=`` given (``inf``: no limit, so over it), else tool.xml's ``<limits><cputime>`` (review r29 #7:
``timeout=inf`` left a tool a synchronous call, and ``timeout=5`` left a ``<cputime>600`` tool a job, since only
``<cputime>`` was looked at). Real tool.xml files, real registrations."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.sources.rappture import load_rappture_tool

pytest.importorskip("pint")

TOOLS = Path(__file__).parent / "tools"
FERMI = TOOLS / "fermi"  # no <limits>: 4 h, a call
INPUTS = TOOLS / "inputs"  # <cputime>20</cputime>: a call


def long_tool(tmp_path: Path) -> Path:
    """The fermi tool with ``<limits><cputime>600</cputime></limits>``: a job by itself."""
    folder = tmp_path / "fermi_long"
    shutil.copytree(FERMI, folder)
    xml = folder / "tool.xml"
    xml.write_text(xml.read_text().replace("</command>", "</command>\n    <limits><cputime>600</cputime></limits>"))
    return xml


@pytest.mark.parametrize("tool", [FERMI, INPUTS], ids=["no-cputime", "cputime-20"])
@pytest.mark.parametrize(("timeout", "job"), [(None, False), (math.inf, True), (1e308, True), (31, True), (30, False),
                                              (5, False)], ids=repr)
def test_the_limit_in_force_decides(tool: Path, timeout: float | None, job: bool) -> None:
    assert load_rappture_tool(tool, timeout=timeout).long is job


def test_a_short_timeout_makes_a_long_cputime_tool_a_call_and_long_asks_still_win(tmp_path: Path) -> None:
    xml = long_tool(tmp_path)
    assert load_rappture_tool(xml).long
    assert not load_rappture_tool(xml, timeout=5).long  # no run can pass 5 s
    assert load_rappture_tool(xml, timeout=5, long=True).long
    assert not load_rappture_tool(FERMI, timeout=math.inf, long=False).long


def test_add_rappture_tool_with_timeout_inf_registers_a_job_tool(tmp_path: Path) -> None:
    server = MCPServer("rappture-inf", state_dir=str(tmp_path / "state"))
    assert server.add_rappture_tool(FERMI, timeout=math.inf).background
    assert not server.add_rappture_tool(FERMI, name="asked_sync", timeout=math.inf, background=False).background
    with pytest.raises(RegistrationError, match=r"its timeout= \(inf, longer than 30 s\) makes it a job tool; give "
                                                r"background=False to cache it"):
        server.add_rappture_tool(FERMI, name="cached", timeout=math.inf, cache=True)
    with pytest.raises(RegistrationError, match=r"its timeout= \(600 s, longer than 30 s\) makes it a job tool"):
        server.add_rappture_tool(FERMI, name="cached", timeout=600, cache=True)
