"""A ``<limits><cputime>`` that is not whole seconds, ``unlimited`` or empty (``1e3``, ``1e9``, ``2h``,
``1d3``, ``1.5``, ``-5``, ``abc``) is refused when the tool is registered, in one line naming the tool, the
value as written, what fits and the file; ``600``, ``60s``, ``unlimited`` and none are read as before, and
a ``timeout=`` given stands in for one that cannot be read.

Found by a fresh-user trial (trial39 R13): ``1e3``, ``1e9``, ``2h`` and ``1d3`` were read by their leading
digits as 1-2 s and raised to 10 s: every run was stopped after 10 s and the tool was not a job tool, with no
word; ``abc`` and ``-5`` became 4 hours and a job tool.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

TOOL = """<?xml version="1.0"?>
<run><tool><id>lim</id><command>python @tool/q.py @driver</command>{limits}</tool>
<input><integer id="n"><default>1</default></integer></input></run>
"""


def _tool(folder: Path, cputime: str | None) -> Path:
    folder.mkdir(parents=True)
    limits = "" if cputime is None else f"<limits><cputime>{cputime}</cputime></limits>"
    (folder / "tool.xml").write_text(TOOL.format(limits=limits))
    return folder


@pytest.mark.parametrize("cputime", ["1e3", "1e9", "2h", "1d3", "1.5", "-5", "abc", "10 min",
                                     "\uff16\uff10\uff10", "600\u0660"])  # trial41 Q7 NIT: Tcl reads ASCII digits only
def test_an_unreadable_cputime_is_refused_in_one_line(tmp_path: Path, cputime: str) -> None:
    server = MCPServer("limits", state_dir=str(tmp_path / "state"))
    folder = _tool(tmp_path / "lim", cputime)
    with pytest.raises(RegistrationError) as refused:
        server.add_rappture_tool(str(folder), rappture="")
    text = str(refused.value)
    assert "\n" not in text
    assert text == (f"Rappture tool 'lim': <limits><cputime> is {cputime!r}, which is not a time limit Rappture "
                    "reads: write whole seconds (3600, at least 10, at most 43200) or unlimited, or give timeout= "
                    f"(in {folder / 'tool.xml'})")
    assert server.core.registry.tools.get("lim") is None


@pytest.mark.parametrize(("cputime", "limit", "background"), [
    ("600", 600, True), ("60s", 60, True), ("20", 20, False), ("3", 10, False), ("100000", 43200, True),
    ("unlimited", 43200, True), ("", 14400, False), (None, 14400, False)])
def test_readable_cputimes_are_read_as_before(tmp_path: Path, cputime: str | None, limit: int,
                                              background: bool) -> None:
    server = MCPServer("limits", state_dir=str(tmp_path / "state"))
    record = server.add_rappture_tool(str(_tool(tmp_path / "lim", cputime)), rappture="")
    assert record.background is background
    assert re.search(rf"a run may take up to {limit} s\.", record.description or "")


def test_a_timeout_stands_in_for_an_unreadable_cputime(tmp_path: Path) -> None:
    server = MCPServer("limits", state_dir=str(tmp_path / "state"))
    record = server.add_rappture_tool(str(_tool(tmp_path / "lim", "2h")), rappture="", timeout=7200)
    assert record.background is True
    assert "a run may take up to 7200 s." in (record.description or "")
