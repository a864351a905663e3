"""A record's arguments text is the same whether made on the short way (a tool without secrets) or the long one."""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp.schema.kept_arguments import MAX_KEPT_ARGUMENTS_BYTES, arguments_text
from nanohubmcp.server.provenance import capture

ARGUMENTS: list[Any] = [
    {"a": 1.5, "b": 2.25},
    {},
    {"text": 'a "quoted"\n\\ line', "n": None, "ok": True, "list": [1, 2.0, {"x": "y"}]},
    {"name": "é ü 漢"},
    {"surrogate": "\ud800"},
    {"big": "x" * (MAX_KEPT_ARGUMENTS_BYTES + 10), "small": 1},
    {"nan": float("nan")},
    ["not", "a", "dict"],
    None,
]


@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_the_short_way_gives_the_long_ways_text(arguments: Any) -> None:
    long_way = arguments_text(arguments if isinstance(arguments, dict) else {})
    assert capture._plain_arguments_text(arguments) == long_way
