"""A ``tools/call`` a middleware answers itself, never handing it on (the documented "answer from a
layer" pattern), ran no code of the tool: it leaves no provenance record (nothing a record could
truthfully name: the tool's code, its executor, where it ran), its result carries no
``io.nanohub/provenance`` key (no ``Link`` over REST), and the result cache does not keep it as the
tool's result. A call the middleware hands on is recorded as before (trial11 F9)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer, Request
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
FROM_LAYER = {"content": [{"type": "text", "text": "from middleware"}], "isError": False}


class App:
    """A server whose middleware answers ``add`` with ``a == 16`` and ``square`` while ``answering``."""

    def __init__(self) -> None:
        self.runs: list[str] = []
        self.answering = True
        self.server = server = MCPServer("answered", job_store="memory")

        @server.tool()
        def add(a: float, b: float) -> float:
            """Sum."""
            self.runs.append("add")
            return a + b

        @server.tool(cache=True)
        def square(n: int) -> int:
            """n squared (cached)."""
            self.runs.append("square")
            return n * n

        @server.middleware
        async def answers_some(request: Request, call_next: Any) -> dict[str, Any]:
            arguments = request.params.get("arguments") or {}
            if (request.tool_name == "add" and arguments.get("a") == 16) or (
                    request.tool_name == "square" and self.answering):
                return {**FROM_LAYER, "content": list(FROM_LAYER["content"])}
            return await call_next(request)


@pytest.fixture
def app() -> App:
    return App()


def record_tools(server: MCPServer) -> list[str]:
    return [record["tool"] for record in server.core.provenance.recent(50)]


async def test_an_answer_from_a_layer_has_no_record_and_a_handed_on_call_has_one(app: App, tmp_path: Path) -> None:
    async with MemoryClient(app.server) as client:
        answered = await client.call_tool("add", {"a": 16, "b": 1})
        handled = await client.call_tool("add", {"a": 1, "b": 2})
    assert answered["content"] == FROM_LAYER["content"]
    assert PROVENANCE_META not in (answered.get("_meta") or {})  # no record to name
    assert app.runs == ["add"]  # the tool ran for the handed-on call only
    uri = handled["_meta"][PROVENANCE_META]
    assert record_tools(app.server) == ["add"]  # one record: the call that ran
    record = app.server.core.provenance.find(uri.rsplit("/", 1)[1])
    assert record is not None
    assert (record["arguments"], record["result"]["content"][0]["text"]) == ({"a": 1, "b": 2}, "3.0")
    assert record["executor"] is not None
    assert record["code"]["hash"].startswith("sha256:")


async def test_the_result_cache_does_not_keep_an_answer_from_a_layer(app: App) -> None:
    async with MemoryClient(app.server) as client:
        first = await client.call_tool("square", {"n": 7})
        app.answering = False
        second = await client.call_tool("square", {"n": 7})
        third = await client.call_tool("square", {"n": 7})
    assert first["content"] == FROM_LAYER["content"]
    assert PROVENANCE_META not in (first.get("_meta") or {})
    # Not a hit of the layer's answer: the tool runs, its result is kept and then answers from the cache.
    assert second["content"][0]["text"] == third["content"][0]["text"] == "49"
    assert second["_meta"]["io.nanohub/cache"] == {"hit": False}
    assert third["_meta"]["io.nanohub/cache"] == {"hit": True}
    assert app.runs == ["square"]
    assert record_tools(app.server) == ["square", "square"]  # the run and its hit (cached_from the run)


@pytest.fixture
def url(app: App) -> Iterator[str]:
    with serve(app.server) as base:
        yield base


def test_over_rest_an_answer_from_a_layer_names_no_record(app: App, url: str) -> None:
    answered = httpx2.post(url + "tools/add", json={"a": 16, "b": 1}, timeout=10)
    handled = httpx2.post(url + "tools/add", json={"a": 1, "b": 1}, timeout=10)
    assert (answered.status_code, answered.json()) == (200, {"result": "from middleware"})
    assert "Link" not in answered.headers
    assert handled.json() == {"result": "2.0"}
    assert 'rel="http://www.w3.org/ns/prov#has_provenance"' in handled.headers["Link"]
    assert record_tools(app.server) == ["add"]
