"""Whether a job's value is JSON (``json_spelled``) is answered by a walk that stops at the first picture or
content object, without copying the value (review r20, L5).

It asked ``mixed.split(value) is None``: a whole ``Split``, each data item copied with placeholders for the
pieces, made to answer yes or no, and made again when the value was shaped. The copy is measured here with
``tracemalloc``: a list of 100,000 integers beside a content object was copied whole (about 800 kB).
"""

from __future__ import annotations

import tracemalloc

from nanohubmcp import TextContent
from nanohubmcp.server.results.shape import json_spelled


def test_a_large_list_beside_a_content_object_is_not_copied_to_tell_it_is_no_json() -> None:
    numbers = list(range(100_000))
    value = [numbers, TextContent("caption")]
    tracemalloc.start()
    try:
        spelled = json_spelled(value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert spelled is False  # a list mixing content with data: its text blocks are the pieces'
    assert peak < 100_000, f"{peak} bytes allocated to answer"  # the list's copy alone is 800 kB


def test_the_answer_is_the_same_as_before_for_data_and_for_mixed_values() -> None:
    assert json_spelled([[1, 2], {"n": 1}]) is True
    assert json_spelled({"n": [1, 2], "caption": TextContent("x")}) is True  # a dict is JSON: its own data
    assert json_spelled([{"n": 1}, [TextContent("x")]]) is False  # content inside an item
    assert json_spelled([{"n": 1}, b"\x89PNG\r\n\x1a\n"]) is False  # bytes among a list's items: a block (L6)
