"""``server.runtime.provenance.find`` takes what a result's ``_meta`` names — the record's whole
``nanohubmcp://provenance/<id>`` URI — as well as the id alone, as ``nanohubmcp provenance show`` does
(docs/api/summary.md; a fresh user's trial found the URI answered None): through a real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of


def test_find_answers_the_uri_and_the_id_alike(tmp_path: Path) -> None:
    server = MCPServer("finding", state_dir=str(tmp_path))

    @server.tool()
    def add(a: int, b: int) -> int:
        """a + b."""
        return a + b

    server.start(port=0)
    try:
        uri = server.call("add", {"a": 2, "b": 3})["_meta"]["io.nanohub/provenance"]
        by_id = server.runtime.provenance.find(record_id_of(uri))
        by_uri = server.runtime.provenance.find(uri)
        assert by_id is not None
        assert by_uri == by_id
        assert by_uri["tool"] == "add"
        assert server.runtime.provenance.find(uri + "x") is None  # another id: no record
        assert server.runtime.provenance.find("nanohubmcp://provenance/") is None
        with pytest.raises(TypeError):
            server.runtime.provenance.find(None)  # type: ignore[arg-type]
    finally:
        server.stop()
