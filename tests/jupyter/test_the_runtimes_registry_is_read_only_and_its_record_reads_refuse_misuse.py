"""``server.runtime``'s registry tables are read-only views, and its provenance reads refuse what is no count or id
(trial 74: F11, ``runtime.tools["x"] = None`` was taken silently into the live registry; F15,
``runtime.provenance.recent(-1)`` answered every record, and ``find(None)`` / ``find(5)`` answered None as for an
unknown id). trial 75 F3: a numpy integer, which ``operator.index`` takes, was refused as no ``int``."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer


def build(tmp_path: Path) -> MCPServer:
    server = MCPServer("runtime-reads", state_dir=str(tmp_path))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.prompt()
    def hello() -> str:
        """Say hello."""
        return "hello"

    return server


def test_the_registry_tables_take_no_assignment(tmp_path: Path) -> None:
    server = build(tmp_path)
    runtime = server.runtime
    for table in (runtime.tools, runtime.resources, runtime.templates, runtime.prompts):
        with pytest.raises(TypeError):
            table["x"] = None  # type: ignore[index]
    assert sorted(runtime.tools) == ["add"]
    assert runtime.tools["add"].name == "add"
    with serve(server):
        assert server.call("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"  # the registry as it was


@pytest.mark.parametrize("limit", [1.5, True, None, "3"])
def test_recent_refuses_a_count_that_is_no_int(tmp_path: Path, limit: object) -> None:
    with pytest.raises(TypeError, match="int"):
        build(tmp_path).runtime.provenance.recent(limit)  # type: ignore[arg-type]


def test_recent_refuses_a_negative_count_and_reads_the_rest(tmp_path: Path) -> None:
    server = build(tmp_path)
    with serve(server):
        server.call("add", {"a": 1, "b": 2})
    records = server.runtime.provenance
    with pytest.raises(ValueError, match="0 or more"):
        records.recent(-1)
    assert records.recent(0) == []
    [record] = records.recent(5)
    assert record["tool"] == "add"
    assert records.find(record["id"])["id"] == record["id"]  # type: ignore[index]


def test_recent_takes_a_numpy_integer(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    server = build(tmp_path)
    with serve(server):
        server.call("add", {"a": 1, "b": 2})
    records = server.runtime.provenance
    [record] = records.recent(np.int64(2))
    assert record["tool"] == "add"
    assert records.recent(np.uint8(0)) == []
    with pytest.raises(ValueError, match="0 or more"):
        records.recent(np.int32(-1))
    with pytest.raises(TypeError, match="int"):
        records.recent(np.float64(2.0))  # type: ignore[arg-type]


@pytest.mark.parametrize("record_id", [None, 5, b"abc"])
def test_find_refuses_an_id_that_is_no_str(tmp_path: Path, record_id: object) -> None:
    with pytest.raises(TypeError, match="str"):
        build(tmp_path).runtime.provenance.find(record_id)  # type: ignore[arg-type]
