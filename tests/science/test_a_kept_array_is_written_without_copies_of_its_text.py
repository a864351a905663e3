"""An array too large to inline, kept as a resource, is kept as the text its JSON was written to:
no wrapped copy of it, no slice of that copy, no UTF-8 copy of all of it to write the file. The
conversion's peak memory is under three times the text (the text, and its chunks while they are joined).

A fresh-user trial (trial26 F1) kept 10,000,000 floats (192 MB of JSON) over MCP with the process at
1.0 GB, against 0.6 GB for REST answering all of it: the kept text was copied three times.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from nanohubmcp.server.results import shape
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore

np = pytest.importorskip("numpy")


def test_a_kept_arrays_peak_memory_is_under_three_times_its_text(tmp_path: Path) -> None:
    values = np.linspace(0, 1, 1_000_000)
    store = ResultStore(ttl=60, directory=lambda: str(tmp_path))
    sink = ResultSink(ResultOptions(max_inline_bytes=1000), store, "s")
    shape.tool_result(values[:10_000], sink=sink)  # (imports and first-use costs out of the way)
    tracemalloc.start()
    try:
        result = shape.tool_result(values, sink=sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    link = next(block for block in result["content"] if block["type"] == "resource_link")
    size = link["size"]
    assert size > 15_000_000
    assert peak < 3 * size, (peak, size)
    text = store.read(link["uri"], "s")["contents"][0]["text"]
    assert len(text) == size
    assert json.loads(text)[-1] == 1.0
