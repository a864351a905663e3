"""A ``tools/call``'s ``arguments`` is settled before the first layer runs: null or absent arrive
as ``{}``, anything but an object is refused -32602 (a message naming what to send) and no layer
sees it. The middleware page's own "Answering from a layer" example, run against a real server,
answers every shape the way the server does without it (trial 19, F3)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import post_rpc, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "middleware.md"
ABSENT = object()


def page_example(name: str) -> str:
    """The page's python block that defines ``name``."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    (block,) = [b for b in blocks if f"def {name}(" in b]
    return block


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, list[Any], dict[str, Any]]]:
    """The docs' caching layer, a layer recording the arguments it sees, and a tool, served."""
    namespace: dict[str, Any] = {}
    exec(page_example("cache_tool_results"), namespace)
    server: MCPServer = namespace["server"]
    seen: list[Any] = []

    @server.tool()
    def slow_lookup(key: str = "x") -> str:
        """Look a key up."""
        return key * 2

    @server.middleware
    async def record(request: Any, call_next: Any) -> dict[str, Any]:
        seen.append(request.params.get("arguments", ABSENT))
        return await call_next(request)

    with serve(server) as base:
        yield base, seen, namespace["cache"]


@pytest.fixture
def url(served: tuple[str, list[Any], dict[str, Any]]) -> str:
    """The server's URL, with the docs' layer's cache and the record emptied."""
    served[1].clear()
    served[2].clear()
    return served[0]


def call(base: str, arguments: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "slow_lookup"}
    if arguments is not ABSENT:
        params["arguments"] = arguments
    return post_rpc(base, "tools/call", params)


@pytest.mark.parametrize("arguments", [None, ABSENT], ids=["null", "absent"])
def test_null_or_absent_arguments_reach_the_layers_as_an_empty_dict(
    url: str, served: tuple[str, list[Any], dict[str, Any]], arguments: Any
) -> None:
    answer = call(url, arguments)
    assert answer["result"]["content"][0]["text"] == "xx"  # the docs' layer handed it on; the tool ran
    assert served[1] == [{}]


@pytest.mark.parametrize(
    ("arguments", "kind"), [([1], "an array"), ("s", "a string"), (3, "an integer"), (True, "a boolean")]
)
def test_arguments_that_are_not_an_object_are_invalid_params_before_any_layer(
    url: str, served: tuple[str, list[Any], dict[str, Any]], arguments: Any, kind: str
) -> None:
    error = call(url, arguments)["error"]
    assert error["code"] == -32602
    assert f"params.arguments must be an object of argument names to values, not {kind}" in error["message"]
    assert "send {}" in error["message"]
    assert served[1] == []


def test_an_object_passes_the_docs_cache(url: str, served: tuple[str, list[Any], dict[str, Any]]) -> None:
    assert call(url, {"key": "a"})["result"]["content"][0]["text"] == "aa"
    assert call(url, {"key": "a"})["result"]["content"][0]["text"] == "aa"  # the second from the cache
    assert served[1] == [{"key": "a"}]
