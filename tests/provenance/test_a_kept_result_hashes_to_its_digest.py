"""A record keeps its result as the exact text ``result_digest`` hashed (``result_text``), and the
RO-Crate's ``result.json`` is that text byte for byte, so ``sha256(result.json)`` is the file's
``identifier``; a reader showing the kept result as a value keeps its keys in the result's order.
Without authorization the crate names no ``agent`` (docs/how-to/provenance.md). The call is made
through a real server by the official client."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from clients import official
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.crate import write_crate

pytestmark = pytest.mark.anyio


def labels() -> dict[str, Any]:
    """Keys out of alphabetical order, and text that is not ASCII."""
    return {"z": "Grüße", "a": 1.5, "日本": ["電子", "✓"]}


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


async def test_the_kept_text_and_the_crates_result_file_hash_to_the_digest(tmp_path: Path) -> None:
    server = MCPServer("kept", state_dir=str(tmp_path / "state"))
    server.tool()(labels)
    with serve(server) as url:
        async with official(url, "ignored: the server has no auth") as client:
            result = await client.call_tool("labels", {})
            uri = result.meta["io.nanohub/provenance"]
            read = await client.read_resource(uri)
        record = server.core.provenance.find(uri.rsplit("/", 1)[1])
        written = server.export_provenance(uri, tmp_path / "crate")
    assert record is not None
    assert sha256(record["result_text"].encode()) == record["result_digest"]
    assert "日本" in record["result_text"]  # as the wire wrote it, not escaped
    assert list(record["result"]["structuredContent"]) == ["z", "a", "日本"]
    shown = json.loads(read.contents[0].text)  # the record as a resource: the kept result in its order
    assert list(shown["result"]["structuredContent"]) == ["z", "a", "日本"]
    assert sha256(shown["result_text"].encode()) == record["result_digest"]

    data = (written / "result.json").read_bytes()
    metadata = json.loads((written / "ro-crate-metadata.json").read_text())
    entities = {entity["@id"]: entity for entity in metadata["@graph"]}
    assert entities["result.json"]["identifier"] == record["result_digest"] == sha256(data)
    assert list(json.loads(data)["structuredContent"]) == ["z", "a", "日本"]
    action = next(entity for entity in metadata["@graph"] if entity.get("@type") == "CreateAction")
    assert "agent" not in action  # no authenticated caller: no agent (the session is in provenance.json)
    assert json.loads((written / "provenance.json").read_text())["session"] == record["session"]


def test_a_record_without_its_kept_text_names_no_identifier_its_file_does_not_hash_to(tmp_path: Path) -> None:
    record = {"id": "old", "tool": "t", "started": 1.0, "ended": 2.0, "status": "completed",
              "result": {"content": [], "structuredContent": {"z": "日本", "a": 1}},
              "result_digest": "sha256:" + "0" * 64}  # a digest this file's bytes do not give
    written = write_crate(record, None, tmp_path / "crate")
    metadata = json.loads((written / "ro-crate-metadata.json").read_text())
    entity = next(entity for entity in metadata["@graph"] if entity["@id"] == "result.json")
    assert "identifier" not in entity
    assert json.loads((written / "result.json").read_bytes()) == record["result"]
