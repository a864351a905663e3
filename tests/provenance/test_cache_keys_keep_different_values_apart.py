"""The result cache's key tells apart values a function tells apart (trial14 F1, F6): ``-0.0`` is not
``0`` (``math.atan2``, ``1/x``, ``copysign`` answer otherwise), also inside a dict argument and across
principals of a ``cache="shared"`` tool; ``3.0`` stays the same call as ``3``. A ``server.call`` whose
arguments JSON has no form for (NaN, an infinity, an object, a set, a dict key that is not a string)
runs every time, uncached, instead of being keyed by the value's text (two objects printing alike
shared one result).

Over HTTP: sessionless ``POST /mcp`` with a bearer token per principal (alice, bob); in process:
``server.call`` on the same served server.
"""

from __future__ import annotations

import http.client
import json
import math
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

CACHE = "io.nanohub/cache"
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


class Served:
    def __init__(self, server: MCPServer, url: str, runs: list[str]) -> None:
        self.server, self.url, self.runs = server, url, runs

    def call(self, name: str, body: str, token: str) -> dict[str, Any]:
        """The result of a ``tools/call`` whose arguments are the JSON text ``body`` (sent as written)."""
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            text = f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{body}}}}}'
            connection.request("POST", parts.path + "mcp", text, {
                "Content-Type": "application/json", "Accept": "application/json",
                "Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-11-25"})
            response = connection.getresponse()
            data = response.read()
            assert response.status == 200, data
        finally:
            connection.close()
        result: dict[str, Any] = json.loads(data)["result"]
        return result


def text(result: dict[str, Any]) -> str:
    """The text of a result's one content block."""
    block: str = result["content"][0]["text"]
    return block


class Printed:
    """Different objects whose ``str`` is the same."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __str__(self) -> str:
        return "Printed"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    runs: list[str] = []
    server = MCPServer("keys", state_dir=str(tmp_path / "state"), provenance=False, auth=StaticTokenVerifier(TOKENS))

    @server.tool(cache="shared")
    def angle(x: float) -> float:
        """The angle of the point (-1, x): +pi for x = 0, -pi for x = -0.0."""
        runs.append("angle")
        return math.atan2(x, -1.0)

    @server.tool(cache=True)
    def signs(d: dict) -> dict[str, float]:  # type: ignore[type-arg]
        """copysign(1, value) of each value."""
        runs.append("signs")
        return {key: math.copysign(1.0, value) for key, value in d.items()}

    @server.tool(cache=True)
    def shown(v: object) -> str:
        """The repr of what it got (of its ``v`` attribute when it has one)."""
        runs.append("shown")
        return repr(getattr(v, "v", v))

    with serve(server) as url:
        yield Served(server, url, runs)


def test_minus_zero_is_not_zero_across_principals_of_a_shared_tool(served: Served) -> None:
    bob = served.call("angle", '{"x": -0.0}', "bob-token")
    assert (text(bob), bob["_meta"][CACHE]) == (repr(-math.pi), {"hit": False})
    alice = served.call("angle", '{"x": 0.0}', "alice-token")  # bob's result was this one's
    assert (text(alice), alice["_meta"][CACHE]) == (repr(math.pi), {"hit": False})
    assert served.runs == ["angle", "angle"]
    for body, token, expected in (('{"x": 0}', "alice-token", math.pi), ('{"x": -0.0}', "alice-token", -math.pi),
                                  ('{"x": 0.0}', "bob-token", math.pi), ('{"x": -0.0}', "bob-token", -math.pi)):
        again = served.call("angle", body, token)  # a shared tool: one entry per value, for everyone
        assert (text(again), again["_meta"][CACHE]) == (repr(expected), {"hit": True}), body
    assert served.runs == ["angle", "angle"]
    # Another spelling of the same number is still the same call (docs/how-to/cache.md).
    assert served.call("angle", '{"x": 3}', "alice-token")["_meta"][CACHE] == {"hit": False}
    assert served.call("angle", '{"x": 3.0}', "alice-token")["_meta"][CACHE] == {"hit": True}


def test_minus_zero_inside_a_dict_argument_is_its_own_call(served: Served) -> None:
    first = served.call("signs", '{"d": {"a": -0.0}}', "alice-token")
    assert first["structuredContent"] == {"a": -1.0}
    second = served.call("signs", '{"d": {"a": 0}}', "alice-token")
    assert (second["structuredContent"], second["_meta"][CACHE]) == ({"a": 1.0}, {"hit": False})
    assert served.call("signs", '{"d": {"a": 0.0}}', "alice-token")["_meta"][CACHE] == {"hit": True}


def test_a_server_call_with_a_value_json_cannot_write_runs_uncached(served: Served) -> None:
    server = served.server
    for first, second, expected in (
        (Printed(1), Printed(2), ("1", "2")),  # both print "Printed": one result for both before
        ({1, 2}, {3}, ("{1, 2}", "{3}")),
        ({1: "a"}, {2.5: "b"}, ("{1: 'a'}", "{2.5: 'b'}")),
        (math.nan, math.nan, ("nan", "nan")),
        (math.inf, math.inf, ("inf", "inf")),
    ):
        served.runs.clear()
        answers = [server.call("shown", {"v": value}) for value in (first, second)]
        assert [text(a) for a in answers] == list(expected), first
        assert all(CACHE not in (a.get("_meta") or {}) for a in answers), answers  # not looked up, not kept
        assert served.runs == ["shown", "shown"]
    served.runs.clear()
    assert server.call("shown", {"v": {"1": "a"}})["_meta"][CACHE] == {"hit": False}
    keyed = server.call("shown", {"v": {1: "a"}})  # JSON writes the key 1 as "1": it was a hit of the above
    assert (text(keyed), CACHE in (keyed.get("_meta") or {})) == ("{1: 'a'}", False)
    # A JSON value through server.call is cached as ever (a tuple is the array it is sent as).
    served.runs.clear()
    assert server.call("shown", {"v": [1, 2]})["_meta"][CACHE] == {"hit": False}
    assert server.call("shown", {"v": (1, 2)})["_meta"][CACHE] == {"hit": True}
    assert served.runs == ["shown"]
