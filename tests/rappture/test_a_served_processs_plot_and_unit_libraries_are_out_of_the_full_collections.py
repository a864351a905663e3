"""A served process freezes what a Rappture call imports late (matplotlib for its plots, pint and its unit registry),
as it froze its start-up; a process that does not serve freezes nothing.

Issue 28 (perf44r, bench/findings.md): matplotlib (~63k objects) and pint's registry (~50k) were imported after the
start-up's freeze (``processes/frozen_heap``), so each full collection of a served Rappture tool's process walked
them: ~100k objects, 74 ms on the figure thread at load 3, 194 ms at load 8 while a call's program ran.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest
from support import call_tool_http, script_server

from nanohubmcp.server.wire.late_imports import late_imports

pytestmark = pytest.mark.timeout(180)

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"

SERVER = """
import gc
import sys

from nanohubmcp import MCPServer

server = MCPServer("plots")
server.add_rappture_tool(sys.argv[1])


@server.tool()
def walked() -> dict:
    '''Which of the late imports' objects a full collection walks.'''
    from nanohubmcp.sources.rappture.compat.Rappture import Units

    objects = gc.get_objects()
    return {
        "matplotlib": any(each is sys.modules["matplotlib.figure"] for each in objects),
        "pint": any(each is sys.modules["pint"] for each in objects),
        "registry": any(each is Units._made for each in objects),
    }


server.run(host="127.0.0.1", port=0)
"""


def test_a_served_rappture_calls_plot_and_unit_libraries_are_frozen(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pint")
    with script_server(SERVER, str(FERMI), directory=tmp_path) as served:
        # (26.85C: converted to the tool's K, so the call makes pint's registry; the curve is plotted)
        result = call_tool_http(served.url, "fermi", {"temperature": "26.85C"}, timeout=120)
        assert not result["isError"], result
        assert any(block["type"] == "image" for block in result["content"]), result["content"]
        walked = json.loads(call_tool_http(served.url, "walked")["content"][0]["text"])
    assert walked == {"matplotlib": False, "pint": False, "registry": False}


def test_a_late_import_outside_a_served_process_freezes_nothing(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "late_imported_here.py").write_text("made = [object()]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    frozen = gc.get_freeze_count()
    with late_imports():
        import late_imported_here
    assert gc.get_freeze_count() == frozen
    assert any(each is late_imported_here.made for each in gc.get_objects())
    del sys.modules["late_imported_here"]
