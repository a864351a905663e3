"""A record's arguments text is the same whichever way it is made: orjson (when installed), the C encoder's
chunks, or the long way (``arguments_text``)."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from nanohubmcp.protocol.accelerator import use_accelerator
from nanohubmcp.schema.kept_arguments import MAX_KEPT_ARGUMENTS_BYTES, arguments_text
from nanohubmcp.server.provenance.record_arguments import record_arguments_text
from nanohubmcp.server.registry.components import Tool


class Colour(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 3


ARGUMENTS: list[Any] = [
    {"a": 1.5, "b": 2.25},
    {"a": 1, "b": 2, "c": True, "d": False, "e": "text"},
    {},
    {"text": 'a "quoted"\n\\ line', "n": None, "ok": True, "list": [1, 2.0, {"x": "y"}]},
    {"controls": "".join(map(chr, range(32))) + "\x7f"},
    {"name": "é ü 漢"},
    {"surrogate": "\ud800"},
    {"big": "x" * (MAX_KEPT_ARGUMENTS_BYTES + 10), "small": 1},
    {"nan": float("nan")},
    {"inf": float("inf")},
    {"minus_inf": float("-inf")},
    # floats orjson spells otherwise (an exponent below 1e-4) and the ones around them
    {"tiny": 1e-05, "small": 1.5e-07, "negative": -9.99e-05},
    {"edge": 1e-4, "zero": 0.0, "minus_zero": -0.0, "large": 1e16, "huge": 1.5e300, "least": 5e-324},
    {"long": 2**63 - 1, "unsigned": 2**64 - 1, "beyond": 2**64, "negative": -(2**63)},
    {"enum": Colour.RED, "int_enum": Level.HIGH},
    {1: "a key JSON writes as a string"},
    ["not", "a", "dict"],
    None,
]


def echo(a: float = 0.0) -> str:
    """Echo."""
    return "ok"


@pytest.fixture(params=[True, False], ids=["orjson", "standard library"])
def accelerated(request: pytest.FixtureRequest) -> Any:
    from nanohubmcp.server.provenance import record_arguments

    before = (record_arguments._fast, record_arguments._looked)
    used = use_accelerator(request.param)
    record_arguments._looked = False  # (looked up again, as at a process's first record)
    yield used
    use_accelerator(True)
    record_arguments._fast, record_arguments._looked = before


@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_each_way_gives_the_long_ways_text(arguments: Any, accelerated: bool) -> None:
    tool = Tool.from_function(echo)
    assert tool.secrets is None
    long_way = arguments_text(arguments if isinstance(arguments, dict) else {})
    assert record_arguments_text(arguments, tool) == long_way
