"""In an exported RO-Crate every ``File`` whose ``identifier`` is a ``sha256:`` digest is named by the
SHA-256 of its own bytes in the crate (what ``sha256sum`` of it prints), for a Python tool, a Rappture
tool (``code/tool.xml`` and its program) and a Sim2L (``code/<notebook>.py``); the tool's code hash
(the record's, which for Rappture and Sim2L covers several files) is a ``PropertyValue`` of the
instrument saying what it covers. The same ``tool.xml`` served under another name is the same code:
the same code hash (the result cache keys on the name apart).

Found by a fresh-user trial (X6): ``code/tool.xml`` and a Sim2L's ``code/<nb>.py`` carried the
composite code hash as their identifier, a digest no reader of the crate could recompute, and the
Rappture hash changed with the name the tool was served under.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROVENANCE = "io.nanohub/provenance"


def band_gap(material: str, temperature: float = 300.0) -> dict[str, Any]:
    """A made-up band gap (eV) of a material at a temperature (K)."""
    return {"material": material, "gap_eV": round(1.17 - 4.73e-4 * temperature**2 / (temperature + 636), 4)}


def _checked(crate: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check each File's sha256 identifier against its bytes; (the instrument, its code-hash entity)."""
    entities = {e["@id"]: e for e in json.loads((crate / "ro-crate-metadata.json").read_text())["@graph"]}
    checked = 0
    for identifier, entity in entities.items():
        kinds = entity["@type"] if isinstance(entity["@type"], list) else [entity["@type"]]
        named = entity.get("identifier")
        if "File" in kinds and isinstance(named, str) and named.startswith("sha256:"):
            assert named == "sha256:" + hashlib.sha256((crate / identifier).read_bytes()).hexdigest(), identifier
            checked += 1
    assert checked >= 2  # the code and the result at least
    (action,) = [e for e in entities.values() if e["@type"] == "CreateAction"]
    instrument = entities[action["instrument"]["@id"]]
    code_hash = entities[instrument["additionalProperty"]["@id"]]
    assert code_hash["@type"] == "PropertyValue"
    assert code_hash["value"].startswith("sha256:")
    return instrument, code_hash


async def _export(server: MCPServer, tool: str, arguments: dict[str, Any], crate: Path) -> dict[str, Any]:
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            result = await session.call_tool(tool, arguments)
        assert not result.is_error, result.content
        produced = result.meta[PROVENANCE]
        server.export_provenance(produced, crate)
    return json.loads((crate / "provenance.json").read_text())


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_python_tools_code_file_is_named_by_its_checksum(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    server = MCPServer("checksums-python", state_dir=str(tmp_path / "state"))
    server.tool()(band_gap)
    record = await _export(server, "band_gap", {"material": "Si"}, tmp_path / "crate")
    instrument, code_hash = _checked(tmp_path / "crate")
    assert instrument["@id"] == "code/band_gap.py"
    assert code_hash["value"] == record["code"]["hash"]


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_rappture_tools_files_are_named_by_their_checksums_whatever_its_name(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    tool = tmp_path / "fermi"
    shutil.copytree(EXAMPLES / "rappture" / "fermi", tool)
    hashes = []
    for name in ("fermi", "other"):
        server = MCPServer(f"checksums-{name}", state_dir=str(tmp_path / name))
        server.add_rappture_tool(tool, name=name, plot=False)
        crate = tmp_path / f"crate-{name}"
        record = await _export(server, name, {"temperature": "150K"}, crate)
        instrument, code_hash = _checked(crate)
        assert instrument["@id"] == "code/tool.xml"
        assert instrument["identifier"] == "sha256:" + hashlib.sha256((tool / "tool.xml").read_bytes()).hexdigest()
        assert code_hash["value"] == record["code"]["hash"]
        assert "fermi.py" in code_hash["description"]
        hashes.append(record["code"]["hash"])
    assert hashes[0] == hashes[1], "the same tool.xml and program under another name is the same code"


@pytest.mark.anyio
@pytest.mark.timeout(180)
async def test_a_sim2l_notebooks_code_file_is_named_by_its_checksum(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("checksums-sim2l", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(EXAMPLES / "sim2l" / "cooling" / "cooling.ipynb"), name="cooling")
    record = await _export(server, "cooling", {"points": 5}, tmp_path / "crate")
    instrument, code_hash = _checked(tmp_path / "crate")
    assert instrument["@id"] == "code/cooling.py"
    assert code_hash["value"] == record["code"]["hash"]
