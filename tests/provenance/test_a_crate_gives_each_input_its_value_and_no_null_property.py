"""An exported RO-Crate gives each argument's ``PropertyValue`` the value itself — a string as that
string (``"25C"``, not ``"\\"25C\\""``), a number as a number, a boolean as a boolean — and an object,
an array or null as its JSON text (as Workflow Run Crate's parameter mappings write scalars as
values); no entity has a null property (the code's ``version`` of a function that has none is left
out). The crate still reads back with the ``rocrate`` library.

Found by a fresh-scientist trial (trial 15, F10): every value was its JSON text, and the code
entity said ``"version": null``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.anyio


def measure(sample: str, temperature: str, count: int, rate: float, dry: bool, settings: dict[str, Any],
            points: list[float], note: str | None = None) -> str:
    """Pretend to measure ``sample``."""
    return f"{sample} at {temperature}"


def nulls(value: Any, path: str = "") -> list[str]:
    """The paths of every null in ``value``."""
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in nulls(item, f"{path}/{key}")]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in nulls(item, f"{path}/{index}")]
    return []


async def test_inputs_are_values_and_no_property_is_null(tmp_path: Path) -> None:
    pytest.importorskip("rocrate")
    from rocrate.rocrate import ROCrate

    server = MCPServer("crates", state_dir=str(tmp_path / "state"))
    server.tool()(measure)
    arguments = {"sample": "Si", "temperature": "25C", "count": 3, "rate": 0.25, "dry": True,
                 "settings": {"gain": 2, "mode": "fast"}, "points": [1.5, 2.0], "note": None}
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("measure", arguments)
        written = server.export_provenance(result.meta["io.nanohub/provenance"], tmp_path / "crate")

    graph = json.loads((written / "ro-crate-metadata.json").read_text())["@graph"]
    assert nulls(graph) == []
    values = {entity["name"]: entity["value"] for entity in graph if entity["@id"].startswith("#input-")}
    assert values["sample"] == "Si"
    assert values["temperature"] == "25C"
    assert values["count"] == 3
    assert values["rate"] == 0.25
    assert values["dry"] is True
    assert json.loads(values["settings"]) == {"gain": 2, "mode": "fast"}
    assert json.loads(values["points"]) == [1.5, 2.0]
    assert values["note"] == "null"
    code = next(entity for entity in graph if entity["@id"] == "code/measure.py")
    assert "version" not in code
    assert code["identifier"].startswith("sha256:")

    crate = ROCrate(written)  # the library reads it back
    assert crate.dereference("#input-temperature")["value"] == "25C"
