"""A tool that returns a long plain list must not cost a Python step per item on the event loop.

Found by a fresh-user trial: ``return list(range(7_000_000))`` stalled every other client for ~20 s
while each item was asked whether it was a content block or a picture. The list's item types are now
gathered in one C pass; the number of Python calls while shaping must not grow with the list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from support import count_calls

from nanohubmcp.protocol import jsondec, jsonenc
from nanohubmcp.protocol.content import TextContent
from nanohubmcp.server.results import shape
from nanohubmcp.server.results.convert import mixed
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore


def python_calls(fn: Callable[[], Any]) -> int:
    """How many Python-level function calls ``fn()`` makes (C calls not counted)."""
    return count_calls(fn)


def test_shaping_a_list_of_scalars_makes_as_many_python_calls_for_ten_items_as_for_a_million() -> None:
    # No floats: reading JSON back (structured content) checks each float is finite with a Python
    # call, which is the JSON reader's and not what this is about.
    small = [1, -2, "x", None, True, 3, 4, 5, 6, 7]
    large = small * 100_000
    some = small * 1_000  # (past the sizes at which a constant number of checks join: nesting, long digit runs)
    sink = ResultSink(ResultOptions(max_inline_bytes=1 << 30), ResultStore(ttl=60), "s")
    for index, make in enumerate((
        lambda v: shape.tool_result(v),
        lambda v: shape.tool_result(v, sink=sink),
        lambda v: shape.tool_result(v, data_only=True),
        lambda v: shape.structured_value(v),
        lambda v: mixed.split(v),
        lambda v: mixed.split({"values": v}),
    )):
        few = python_calls(lambda make=make: make(small))
        more = python_calls(lambda make=make: make(some))
        many = python_calls(lambda make=make: make(large))
        assert many <= few + 3, (index, few, many)  # a few checks made only for a large answer, once each
        assert many == more, (index, more, many)  # ten thousand items or a million: the same calls


def test_the_shaped_long_list_is_what_it_always_was() -> None:
    values = [*range(50_000), "a", None, 1.5]
    result = shape.tool_result(values)
    assert result == {"content": [{"type": "text", "text": jsonenc.dumps(values)}], "isError": False,
                      "structuredContent": {"result": values}}
    assert shape.tool_result(values, data_only=True)["structuredContent"] == {"result": values}
    assert shape.structured_value(values) == {"result": values}


def test_a_list_holding_a_content_block_among_numbers_is_still_split() -> None:
    values: list[Any] = [1, 2, 3, TextContent("note")]
    result = shape.tool_result(values)
    assert result["content"][0] == {"type": "text", "text": "note"}
    assert jsondec.loads(result["content"][-1]["text"]) == {"result": [1, 2, 3]}
    nested = {"numbers": list(range(1000)), "inner": [[1, 2], [TextContent("deep")]]}
    split = mixed.split(nested)
    assert split is not None
    assert len(split.pieces) == 1
