"""An array too large to inline is written to the store a part at a time: its JSON text is never held
whole in memory while it is kept, and none of it is held when it turns out larger than the store.

A measurement (bench/kept_peak.py) of a tool returning ``np.linspace(0, 1, n)`` over MCP: n = 10,000,000
(192 MB of JSON, kept) peaked at 0.38 GB over the array, and n = 50,000,000 or 100,000,000 (refused, the
text over ``max_kept_bytes``) at 0.52 GB over it: the text written so far was held until it passed the
limit, then joined. Now a part goes to the kept file (or, with ``job_store="memory"``, to an unnamed
temporary file read back once complete) as it is made: the call takes a few chunks' worth over the
array, plus, in memory, the kept copy itself. The refusal names ``max_kept_bytes`` and what to do.

Sizes are small here: the store's limits are set small, and peaks are read with tracemalloc (numpy and
orjson report their allocations to it) over a call through the in-memory client.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")

VALUES = np.linspace(0, 1, 2_000_000)  # made once, outside any measured call (the tool returns it)
TEXT = jsonenc.dumps(VALUES.tolist())  # 38.5 MB: what the kept resource must read, to the byte
PARTS_PEAK = 20_000_000
"""A bound on what a call may take over the array: copies of a chunk of 65,536 values' text (1.3 MB), and
the chunk split into one string per value when it holds floats written by Python (below 1e-4: 5 MB)."""


def build(state: Path, **options: Any) -> MCPServer:
    server = MCPServer("kept-parts", state_dir=str(state), max_inline_bytes=1000, **options)

    @server.tool()
    def values() -> object:
        """Two million values from 0 to 1."""
        return VALUES

    return server


def link_of(result: dict[str, Any]) -> dict[str, Any]:
    return next(block for block in result["content"] if block["type"] == "resource_link")


def peak_of(client: Any, name: str) -> tuple[dict[str, Any], int]:
    """The result of calling ``name`` and the most memory traced while it ran."""
    client.call_tool(name)  # (first-use costs out of the way, and a first kept result)
    tracemalloc.start()
    try:
        result = client.call_tool(name, timeout=120)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def folder_names(state: Path) -> Iterator[str]:
    yield from sorted(os.listdir(state / "results"))


@pytest.mark.parametrize("job_store", ["sqlite", "memory"])
def test_a_kept_arrays_text_is_written_a_part_at_a_time(tmp_path: Path, job_store: str) -> None:
    server = build(tmp_path, job_store=job_store, max_kept_bytes=100_000_000)
    with in_memory(server, timeout=60) as client:
        result, peak = peak_of(client, "values")
        assert result["isError"] is False, result
        link = link_of(result)
        assert link["size"] == len(TEXT)
        note = result["content"][0]["text"]
        assert note.startswith("numpy array, shape (2000000,), dtype float64")
        assert f"The full result ({len(TEXT)} bytes) is larger than max_inline_bytes (1000)" in note
        kept_copy = len(TEXT) if job_store == "memory" else 0  # in memory, the entry is the text's one copy
        assert peak < kept_copy + PARTS_PEAK, (peak, len(TEXT))

        contents = client.read_resource(link["uri"])
        assert contents[0]["mimeType"] == "application/json"
        assert contents[0]["text"] == TEXT
    if job_store == "sqlite":
        names = list(folder_names(tmp_path))
        assert not [name for name in names if name.endswith(".part")]
        kept = link["uri"].rpartition("/")[2]
        assert (tmp_path / "results" / kept).read_text(encoding="utf-8") == TEXT
        meta = json.loads((tmp_path / "results" / f"{kept}.meta.json").read_text(encoding="utf-8"))
        assert meta["size"] == len(TEXT)
        assert meta["mime_type"] == "application/json"


@pytest.mark.parametrize("job_store", ["sqlite", "memory"])
def test_an_array_larger_than_the_store_is_refused_while_it_is_written_holding_none_of_it(
        tmp_path: Path, job_store: str, caplog: pytest.LogCaptureFixture) -> None:
    limit = 30_000_000  # over the shape's bound (8,000,001 bytes: 4 a value), under the text's 38.5 MB
    server = build(tmp_path, job_store=job_store, max_kept_bytes=limit)

    @server.tool()
    def few() -> object:
        """A hundred thousand values (kept)."""
        return VALUES[:100_000]

    with in_memory(server, timeout=60) as client, caplog.at_level(logging.DEBUG, "nanohubmcp"):
        refused, peak = peak_of(client, "values")
        assert refused["isError"] is True
        assert peak < PARTS_PEAK, peak  # none of the text was held to find out
        text = refused["content"][0]["text"]
        assert f"more than the server keeps for large results ({limit})" in text, text
        assert limit < int(text.split("at least ")[1].split()[0]) < limit + 2_000_000, text  # stopped at once
        assert "save it to a file and return its path" in text
        assert "have the server's max_kept_bytes raised" in text

        kept = client.call_tool("few")  # the server still keeps what fits
        assert kept["isError"] is False
        assert client.read_resource(link_of(kept)["uri"])[0]["text"] == jsonenc.dumps(VALUES[:100_000].tolist())
    refusals = [r for r in caplog.records if "keeps for large results" in r.getMessage()]
    assert len(refusals) == 2  # (one a call: the first-use call was refused too)
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in refusals)
    if job_store == "sqlite":
        assert not [name for name in folder_names(tmp_path) if name.endswith(".part")]


def test_a_result_whose_file_cannot_be_written_is_kept_in_memory(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = build(tmp_path, max_kept_bytes=100_000_000)
    with in_memory(server, timeout=60) as client:
        first = client.call_tool("values")
        assert client.read_resource(link_of(first)["uri"])[0]["text"] == TEXT
        shutil.rmtree(tmp_path / "results")  # the folder is gone: no file can be written there
        with caplog.at_level(logging.WARNING, "nanohubmcp"):
            second = client.call_tool("values")
        assert second["isError"] is False
        assert client.read_resource(link_of(second)["uri"])[0]["text"] == TEXT
    assert any("cannot write the large result" in r.getMessage() for r in caplog.records)


def test_a_part_file_left_by_a_process_that_died_is_removed_and_one_being_written_is_not(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir(mode=0o700)
    stale, fresh = results / ("a" * 32 + ".json.part"), results / ("b" * 32 + ".json.part")
    stale.write_text("[0.0,", encoding="utf-8")
    fresh.write_text("[0.0,", encoding="utf-8")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    server = build(tmp_path)
    with in_memory(server, timeout=60) as client:
        assert client.call_tool("values")["isError"] is False  # the store opens its folder
    assert not stale.exists()
    assert fresh.exists()
