"""A Rappture tool's program or tool.xml edited while the server runs is new code: the next call runs
the edited program and is not answered by the cached result of the old one, its provenance record
names the new code hash (and the code text it exports is the edited file), and the result it stores
is stored under that hash. Off a hub (the ``<command>`` run) and on one (``rappture -execute``, here
the stand-in written to Rappture's documented headless behaviour). A Python function tool keeps the
hash of the code it loaded.

Found by a user trial (trial24 F9): the hash was taken once, at registration, so the result cache
answered an edited program's call with the old program's result.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.code_facts import code_hash, code_of
from nanohubmcp.server.provenance.code_files import files_of

HERE = Path(__file__).parent
CACHE, PROVENANCE = "io.nanohub/cache", "io.nanohub/provenance"
TOOL_XML = """<?xml version="1.0"?>
<run>
  <tool><title>Suffix</title><command>python3 @tool/suffix.py @driver</command></tool>
  <input><string id="word"><about><label>Word</label></about><default>a</default></string></input>
  <output><string id="said"><about><label>Said</label></about></string></output>
</run>
"""
PROGRAM = """import sys

import Rappture

SUFFIX = "{suffix}"
driver = Rappture.library(sys.argv[1])
driver.put("output.string(said).current", driver.get("input.string(word).current") + "-" + SUFFIX)
Rappture.result(driver)
"""


@pytest.fixture(params=["off-hub", "hub"])
def rappture(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``""`` (run the command) or the stand-in ``rappture`` on PATH, as on a hub."""
    if request.param == "off-hub":
        return ""
    return str(request.getfixturevalue("hub_path"))


async def _said(session: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A call with the same argument: (what the program said, the cache meta, the call's record)."""
    result = await session.call_tool("suffix", {"word": "w"})
    assert not result.is_error, result.content
    uri = result.meta[PROVENANCE]
    record = json.loads((await session.read_resource(uri)).contents[0].text)
    return result.structured_content["outputs"]["said"]["value"], result.meta[CACHE], record


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_an_edited_program_runs_uncached_and_is_recorded_by_its_new_hash(tmp_path: Path, rappture: str) -> None:
    tool_dir = tmp_path / "suffix"
    tool_dir.mkdir()
    (tool_dir / "tool.xml").write_text(TOOL_XML)
    program = tool_dir / "suffix.py"
    program.write_text(PROGRAM.format(suffix="one"))
    state = tmp_path / "state"
    server = MCPServer("edits", state_dir=str(state))
    tool = server.add_rappture_tool(tool_dir, rappture=rappture, cache=True, plot=False)

    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            said, cache, first = await _said(session)
            assert (said, cache) == ("w-one", {"hit": False})
            said, cache, _ = await _said(session)
            assert (said, cache) == ("w-one", {"hit": True})

            program.write_text(PROGRAM.format(suffix="two"))  # same size, within the timestamps' resolution
            said, cache, second = await _said(session)
            assert said == "w-two", "the edited program ran, not the old program's cached result"
            assert cache == {"hit": False}
            assert second["code"]["hash"] != first["code"]["hash"]
            assert second["code"]["hash"] == code_hash(tool)
            said, cache, again = await _said(session)
            assert (said, cache) == ("w-two", {"hit": True})
            assert again["cached_from"] == second["uri"], "the hit names the edited program's run"

            xml = (tool_dir / "tool.xml").read_text()
            (tool_dir / "tool.xml").write_text(xml.replace("<title>Suffix</title>", "<title>Suffix 2</title>"))
            said, cache, third = await _said(session)
            assert (said, cache) == ("w-two", {"hit": False}), "an edited tool.xml is other code too"
            assert third["code"]["hash"] not in (first["code"]["hash"], second["code"]["hash"])

    # The records keep the code text that ran, by its hash; the stored results name the code that made them.
    code = code_of(tool, second["code"]["hash"])
    assert code["hash"] == second["code"]["hash"]
    files = files_of(code["source"])
    assert files is not None
    assert {f["name"]: f["text"] for f in files["files"]}["suffix.py"] == PROGRAM.format(suffix="two")
    with sqlite3.connect(state / "cache.sqlite3") as db:
        stored = sorted(row[0] for row in db.execute("SELECT code FROM entries WHERE tool = 'suffix'"))
    assert stored == sorted(r["code"]["hash"] for r in (first, second, third))


def test_a_function_tools_hash_is_of_the_code_it_loaded(tmp_path: Path) -> None:
    module = tmp_path / "edited_tool_module.py"
    module.write_text("def double(x: int) -> int:\n    \"\"\"Twice x.\"\"\"\n    return 2 * x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import edited_tool_module
    finally:
        sys.path.remove(str(tmp_path))
    server = MCPServer("functions", job_store="memory")
    tool = server.add_tool(edited_tool_module.double, cache=True)
    before = code_hash(tool)
    module.write_text("def double(x: int) -> int:\n    return 3 * x\n")
    assert code_hash(tool) == before, "the function loaded is the code that runs"
