"""A table's provenance digest is made from the parts the wire sends, without writing the result once more.

The record of a call that returned a table digests the result as the wire writes it. Its text block (the
records' JSON inside a JSON string) carries its escaped form; the digest first tried the plain C writer,
which escaped the whole block again (for a 300,000-row table, 24 MB escaped on the record writer's thread,
holding the GIL) before it met the pre-encoded ``structuredContent`` and gave up. A result holding
pre-encoded data goes straight to the parts: no copy of the text as large as the block is made.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd

from nanohubmcp.server.provenance.result_text import kept_and_digest, result_text
from nanohubmcp.server.provenance.rows import digest_text
from nanohubmcp.server.results import shape
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink


def test_the_digest_of_a_table_copies_no_text_as_large_as_its_block() -> None:
    rows = 100_000
    frame = pd.DataFrame({"x": np.arange(rows) / 7, "label": np.where(np.arange(rows) % 2 == 0, "even", 'o"dd')})
    result = shape.tool_result(frame, sink=ResultSink(ResultOptions(max_inline_bytes=None)))
    block = result["content"][-1]["text"]
    assert len(block) > 4_000_000
    tracemalloc.start()
    try:
        kept, digest = kept_and_digest(result)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept is None
    assert peak < len(block) // 2  # (the digest reads the parts a megabyte at a time)
    assert digest == digest_text(result_text(result))
