"""REST answers a tool's number or boolean as JSON of that type, as the same tool run as a job does
(trial12 LOW-9: ``POST /tools/half`` answered ``{"result": "3.0"}`` while ``get_job_result`` of the
same function gave ``6.0``). Text stays text; a non-finite number keeps its text on both (JSON has no
such number, and null would read as no value); ``tools/call`` still answers one text block.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from support import serve

from nanohubmcp import MCPServer


class Level(enum.Enum):
    LOW = 1


def build() -> MCPServer:
    server = MCPServer("rest-numbers", job_store="memory", provenance=False)

    def half(x: float) -> float:
        """x / 2."""
        return x / 2

    def count(n: int) -> int:
        """n itself."""
        return n

    def positive(x: float) -> bool:
        """Whether x > 0."""
        return x > 0

    def spelled(x: float) -> str:
        """x as text."""
        return str(x)

    def endless(x: float) -> float:
        """x times infinity."""
        return x * math.inf

    def level() -> Level:
        """An enum member, answered as its value."""
        return Level.LOW

    for fn in (half, count, positive, spelled, endless, level):
        server.tool()(fn)
        server.async_tool(name=f"{fn.__name__}_job")(fn)
    return server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url


def rest(base: str, name: str, arguments: dict[str, Any]) -> Any:
    reply = httpx2.post(f"{base}tools/{name}", json=arguments, timeout=10)
    assert reply.status_code in (200, 202), reply.text
    return reply.json()


def job_result(base: str, name: str, arguments: dict[str, Any]) -> Any:
    job_id = rest(base, f"{name}_job", arguments)["job_id"]
    for _ in range(2000):  # each poll is a round trip: bounded by count, not by time
        answer = rest(base, "get_job_result", {"job_id": job_id})
        if answer["status"] != "running":
            assert answer["status"] == "done", answer
            return answer["result"]
    raise AssertionError(f"job {job_id} still running")


CASES = [
    ("half", {"x": 6}, 3.0),
    ("count", {"n": 5}, 5),
    ("positive", {"x": 1}, True),
    ("spelled", {"x": 3}, "3.0"),
    ("endless", {"x": 1}, "Infinity"),
    ("level", {}, 1),
]


@pytest.mark.parametrize(("name", "arguments", "value"), CASES, ids=[case[0] for case in CASES])
def test_rest_and_the_job_answer_the_same_json_value(base: str, name: str, arguments: dict[str, Any],
                                                     value: Any) -> None:
    direct = rest(base, name, arguments)
    assert direct == {"result": value}
    assert type(direct["result"]) is type(value)
    assert job_result(base, name, arguments) == value


def test_tools_call_still_answers_one_text_block(base: str) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "half", "arguments": {"x": 6}}}
    reply = httpx2.post(base, json=message, headers={"MCP-Protocol-Version": "2025-11-25"}, timeout=10).json()
    assert reply["result"] == {"content": [{"type": "text", "text": "3.0"}], "isError": False}
