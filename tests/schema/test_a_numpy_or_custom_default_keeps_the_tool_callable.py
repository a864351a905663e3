"""A parameter default of any value leaves the tool callable, and its published ``"default"`` is JSON.

Found by a trial (trial38 T9): ``s: float = SIGMA`` with ``SIGMA = np.sqrt(2.0)``, ``p: str = np.str_("a")``
or a ``functools.partial(f, scale=np.float64(2.0))`` tool failed every call, argument given or not, with
"Internal error"; the log said ``NameError: name 'np' is not defined``: the fast-path check pasted the
default's ``repr`` into its generated source.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import urllib.request
from enum import Enum
from typing import Any

import numpy as np
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.schema.fastpath import compile_fast
from nanohubmcp.schema.fragments import NOT_JSON, json_default

pytestmark = pytest.mark.anyio


class Metres(float):
    """A float of the user's own with a repr that is no Python expression."""

    def __repr__(self) -> str:
        return f"<{float(self)} m>"


@dataclasses.dataclass
class Grid:
    points: int = 3

    def __repr__(self) -> str:
        return "<the default grid>"


def _scaled(x: float, scale: float = 1.0) -> float:
    """x times scale."""
    return float(x * scale)


def _science_server() -> MCPServer:
    server = MCPServer("numpy-defaults")

    @server.tool()
    def gauss(x: float, s: float = np.sqrt(2.0)) -> float:
        """x over s."""
        return float(x / s)

    @server.tool()
    def count(n: int = np.int64(5)) -> int:  # type: ignore[assignment]
        """n back."""
        return int(n)

    @server.tool()
    def label(p: str = np.str_("a")) -> str:
        """p back."""
        return str(p)

    @server.tool()
    def flag(on: bool = np.bool_(True)) -> str:  # type: ignore[assignment]
        """on, as text."""
        return "yes" if on else "no"

    @server.tool()
    def length(d: float = Metres(2.5)) -> float:
        """d back."""
        return float(d)

    @server.tool()
    def grid(g: Grid = Grid()) -> int:  # noqa: B008 - an object default is the case under test
        """the grid's points."""
        return g.points

    server.tool(name="scaled")(functools.partial(_scaled, scale=np.float64(2.0)))
    return server


# (tool, arguments given, answer given, answer when not given, published default)
CASES: list[tuple[str, dict[str, Any], str, str, object]] = [
    ("gauss", {"x": 2, "s": 1}, "2.0", str(2 / math.sqrt(2.0)), math.sqrt(2.0)),
    ("count", {"n": 7}, "7", "5", 5),
    ("label", {"p": "b"}, "b", "a", "a"),
    ("flag", {"on": False}, "no", "yes", True),
    ("length", {"d": 1}, "1.0", "2.5", 2.5),
    ("grid", {"g": {"points": 4}}, "4", "3", NOT_JSON),
    ("scaled", {"x": 3, "scale": 3}, "9.0", "6.0", 2.0),
]


async def test_every_default_is_callable_given_or_not_over_the_official_client() -> None:
    server = _science_server()
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            listed = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            for name, given, answer_given, answer_default, published in CASES:
                (prop_name, *_) = [key for key in given if key != "x"]
                prop = listed[name]["properties"][prop_name]
                if published is NOT_JSON:
                    assert "default" not in prop, name
                else:
                    assert prop["default"] == published, name
                    assert type(prop["default"]) is type(published), name
                without = {"x": given["x"]} if "x" in given else {}
                for arguments, expected in ((given, answer_given), (without, answer_default)):
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, (name, arguments, result.content)
                    assert result.content[0].text == expected, (name, arguments)
        # The REST route runs the same check.
        for arguments, expected in (({"x": 2, "s": 1}, 2.0), ({"x": 2}, 2 / math.sqrt(2.0))):
            request = urllib.request.Request(url + "tools/gauss", data=json.dumps(arguments).encode(), method="POST",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as response:
                assert json.load(response) == {"result": str(expected)}  # the text block, as over MCP


def test_the_published_default_is_made_of_json_builtins() -> None:
    for value, plain in [
        (np.float64(1.5), 1.5), (np.str_("a"), "a"), (np.int64(5), 5), (np.bool_(False), False),
        (np.float32(0.5), 0.5), (Metres(2.5), 2.5), ({np.str_("k"): np.float64(2)}, {"k": 2.0}),
        ((np.int8(1), "x"), [1, "x"]),
    ]:
        found = json_default(value)
        assert found == plain
        assert type(found) is type(plain)
        if isinstance(found, dict):
            assert all(type(k) is str and type(v) is float for k, v in found.items())
    for value in (np.datetime64("2020-01-01"), np.complex128(1j), Grid()):
        assert json_default(value) is NOT_JSON
    # A number JSON cannot write is kept, plain, for the schema's check to refuse it (T44-4).
    kept = json_default(np.float64("nan"))
    assert math.isnan(kept)
    assert type(kept) is float
    assert json_default(math.inf) == math.inf


def test_a_schema_holding_values_with_no_literal_repr_still_checks_in_agreement_with_jsonschema() -> None:
    import jsonschema

    class Colour(Enum):
        RED = "red"

    # A hand-written schema may hold anything: annotations are never compiled; a value a check needs
    # whose repr is no literal (inf, a numpy scalar, an Enum member) leaves the check to jsonschema.
    for schema in (
        {"type": "number", "default": np.float64(1.5), "examples": [Grid()], "description": np.str_("d")},
        {"type": "number", "maximum": math.inf},
        {"type": "number", "maximum": np.float64(10)},
        {"enum": [Colour.RED]},
        {"type": "object", "properties": {np.str_("a"): {"type": "number"}}},
    ):
        fast = compile_fast(schema)
        reference = jsonschema.Draft202012Validator(schema)
        for value in (1, 20, "red", None, {"a": "x"}, {"a": 1}):
            assert fast is None or fast(value) == reference.is_valid(value), (schema, value)
    assert compile_fast({"type": "number", "default": np.float64(1.5)}) is not None  # the fast path stays
