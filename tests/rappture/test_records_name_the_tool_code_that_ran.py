"""A Rappture or Sim2L call's provenance record names the code that ran: its code hash is of the
tool's own files (tool.xml and the program its ``<command>`` runs; a Sim2L notebook's code cells),
the same in every server start and process — so a Rappture tool's cached result is found after a
restart — and different for other code; the exported RO-Crate holds those files under ``code/``.

Found by a fresh-user trial (F8): the hash was of an object's repr (new each start) for Rappture
and of nanohubmcp's own wrapper for every Sim2L, and the crate held no tool file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import mcp_client, official_client, serve

from nanohubmcp import MCPServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SERVER = """
import sys
from nanohubmcp import MCPServer

server = MCPServer("codes", state_dir=sys.argv[1])
server.add_rappture_tool(sys.argv[2], cache="shared", plot=False)
server.run(transport="stdio")
"""
CACHE, PROVENANCE = "io.nanohub/cache", "io.nanohub/provenance"


async def _call(script: Path, state: Path, tool: Path) -> tuple[dict[str, object], str, dict[str, object]]:
    """One server start: a call of fermi; (its cache meta, its record URI, the record)."""
    async with official_client([sys.executable, str(script), str(state), str(tool)], env=dict(os.environ)) as session:
        result = await session.call_tool("fermi", {"temperature": "150K"})
        assert not result.is_error, result.content
        uri = result.meta[PROVENANCE]
        record = json.loads((await session.read_resource(uri)).contents[0].text)
        return result.meta[CACHE], uri, record


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_rappture_record_hashes_its_files_and_its_cache_outlives_a_restart(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    tool = tmp_path / "fermi"
    shutil.copytree(EXAMPLES / "rappture" / "fermi", tool)
    script, state = tmp_path / "server.py", tmp_path / "state"
    script.write_text(SERVER)

    first, produced, record = await _call(script, state, tool)
    assert first == {"hit": False}
    second, _, again = await _call(script, state, tool)  # a new process on the same state directory
    assert second == {"hit": True}, "the cached result of the first start is found after a restart"
    assert again["code"]["hash"] == record["code"]["hash"]
    assert record["code"]["module"] == str((tool / "tool.xml").resolve())
    assert record["code"]["qualname"] == "fermi"

    crate = tmp_path / "crate"
    subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "export", produced, "--state-dir", str(state),
                    "-o", str(crate)], check=True, capture_output=True, timeout=60)
    assert (crate / "code" / "tool.xml").read_text() == (tool / "tool.xml").read_text()
    assert (crate / "code" / "fermi.py").read_text() == (tool / "fermi.py").read_text()
    metadata = json.loads((crate / "ro-crate-metadata.json").read_text())
    entities = {entity["@id"]: entity for entity in metadata["@graph"]}
    instrument = entities["code/tool.xml"]
    assert instrument["identifier"] == "sha256:" + hashlib.sha256((tool / "tool.xml").read_bytes()).hexdigest()
    assert entities[instrument["additionalProperty"]["@id"]]["value"] == record["code"]["hash"]
    assert {"@id": "code/fermi.py"} in (instrument["hasPart"] if isinstance(instrument["hasPart"], list)
                                       else [instrument["hasPart"]])
    assert str(tool.resolve()) in instrument["description"]

    with (tool / "fermi.py").open("a") as program:  # another program: other code, a new cache key
        program.write("\n# changed\n")
    third, _, changed = await _call(script, state, tool)
    assert third == {"hit": False}
    assert changed["code"]["hash"] != record["code"]["hash"]


def test_two_sim2l_notebooks_have_their_own_code_hash(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    from nanohubmcp.server.provenance.code_facts import code_of
    from nanohubmcp.server.provenance.code_files import files_of

    original = EXAMPLES / "sim2l" / "cooling" / "cooling.ipynb"
    notebook = json.loads(original.read_text())
    changed = next(cell for cell in notebook["cells"] if cell["cell_type"] == "code"
                   and "parameters" not in cell.get("metadata", {}).get("tags", []))
    changed["source"] = "".join(changed["source"]) + "\n# another computation\n"
    other = tmp_path / "cooling2.ipynb"
    other.write_text(json.dumps(notebook))

    hashes = []
    for path in (original, other, original):
        server = MCPServer("sims", job_store="memory")
        tool = server.add_sim2l(str(path), name="cooling")
        code = code_of(tool)
        hashes.append(code["hash"])
        assert code["module"] == str(path.resolve())
        files = files_of(code["source"])
        assert files is not None
        assert files["kind"] == "sim2l"
        assert "# %% tags=" in files["files"][0]["text"]
    assert hashes[0] == hashes[2] != hashes[1]


@pytest.mark.anyio
async def test_a_binary_program_is_named_by_its_digest_in_the_crate(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    tool = tmp_path / "tool"
    (tool / "bin").mkdir(parents=True)
    program = b"\x7fELF\x00not really a program"
    (tool / "bin" / "app").write_bytes(program)
    (tool / "bin" / "app").chmod(0o755)
    (tool / "tool.xml").write_text("<run><tool><title>B</title><command>@tool/bin/app @driver</command></tool>"
                                   "<input><string id='s'><default>x</default></string></input></run>")
    server = MCPServer("binary", state_dir=str(tmp_path / "state"))
    server.add_rappture_tool(tool, name="binary")
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            result = await session.call_tool("binary", {"s": "y"})  # the "program" cannot run: a failed record
        crate = server.export_provenance(result.meta[PROVENANCE], tmp_path / "crate")
    assert result.is_error
    assert sorted(p.name for p in (crate / "code").iterdir()) == ["tool.xml"]
    entities = {e["@id"]: e for e in json.loads((crate / "ro-crate-metadata.json").read_text())["@graph"]}
    (part,) = [e for e in entities.values() if e.get("name") == "bin/app"]
    assert part["identifier"] == "sha256:" + hashlib.sha256(program).hexdigest()
    assert part["encodingFormat"] == "application/octet-stream"
    assert entities["code/tool.xml"]["hasPart"] == [{"@id": part["@id"]}]
