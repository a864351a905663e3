"""A result larger than ``max_result_bytes`` is refused with a message naming the limit; the server keeps serving.

A trial called a tool returning ``np.linspace(0, 1, n)`` over REST: n = 10,000,000 answered 192 MB of JSON
with the server at 1.2 GB, and n = 100,000,000 drove it past 7 GB with no answer. A REST answer carries all of
the data (nothing is kept aside as a resource), and so does an MCP answer with ``max_inline_bytes=None``:
nothing bounded the memory one answer could take. Now an array, table, list, dict, text or bytes whose JSON is over
``max_result_bytes`` fails the call (REST 500 ``{"error": ...}``, ``isError`` over MCP) saying the size and the
limit, logged as one line; an array or table known from its shape to be too large is refused before its
data is encoded, and an array is written only while its text fits.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from json_posts import post_json
from support import call_tool_http, post_rpc, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.server.results.convert import arrays

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

LIMIT = 100_000


def build(**options: Any) -> MCPServer:
    server = MCPServer("big-results", max_result_bytes=LIMIT, **options)

    @server.tool()
    def arr(n: int) -> object:
        """n values from 0 to 1."""
        return np.linspace(0, 1, n)

    @server.tool()
    def table(n: int) -> object:
        """A table of n rows."""
        return pd.DataFrame({"x": np.arange(n), "y": np.arange(n) * 0.5})

    @server.tool()
    def numbers(n: int) -> list:
        """A plain list of n numbers."""
        return [i / 7 for i in range(n)]

    @server.tool()
    def text(n: int) -> str:
        """n characters."""
        return "x" * n

    @server.tool()
    def blob(n: int) -> bytes:
        """n bytes."""
        return bytes(n)

    return server


def rest(base: str, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    return post_json(base + "tools/" + name, arguments, 60)


def test_over_rest_a_result_over_the_limit_is_refused_and_the_server_keeps_serving(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[int] = []
    to_text = arrays.to_text

    def counted(a: Any, nested: Any, within: int | None = None) -> str:
        encoded.append(a.size)
        return to_text(a, nested, within)

    monkeypatch.setattr(arrays, "to_text", counted)
    server = build()
    with serve(server) as base, caplog.at_level(logging.DEBUG, "nanohubmcp.tool"):
        status, body = rest(base, "arr", {"n": 1000})  # under the limit: all of it
        assert status == 200
        assert len(body["result"]) == 1000

        status, body = rest(base, "arr", {"n": 1_000_000})  # surely over: refused before it is encoded
        assert status == 500, body
        assert "at least 4000001 bytes of JSON" in body["error"]
        assert f"max_result_bytes={LIMIT}" in body["error"]
        assert "ask for less data" in body["error"]
        assert encoded == [1000]  # the large array was never written as JSON

        monkeypatch.setattr(arrays, "CHUNK_CELLS", 1000)
        status, body = rest(base, "arr", {"n": 20_000})  # over only once written: refused while it is
        assert status == 500, body
        stopped = int(body["error"].split("at least ")[1].split()[0])
        assert LIMIT < stopped < LIMIT + 30_000  # ... as soon as the chunks written pass the limit
        assert f"more than this server sends in one answer (max_result_bytes={LIMIT})" in body["error"]

        for name in ("table", "numbers", "text", "blob"):
            status, body = rest(base, name, {"n": 200_000})
            assert status == 500, (name, body)
            assert f"max_result_bytes={LIMIT}" in body["error"], name

        status, body = rest(base, "table", {"n": 10})  # the server still answers
        assert status == 200
        assert body["result"][9] == {"index": 9, "x": 9, "y": 4.5}
    refusals = [r for r in caplog.records if "max_result_bytes" in r.getMessage()]
    assert len(refusals) == 6
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in refusals)  # no traceback: no fault


def test_over_mcp_without_offloading_the_limit_holds_too() -> None:
    server = build(max_inline_bytes=None)
    with serve(server) as base:
        result = call_tool_http(base, "arr", {"n": 1_000_000})
        assert result["isError"] is True
        assert f"max_result_bytes={LIMIT}" in result["content"][0]["text"]
        result = call_tool_http(base, "arr", {"n": 100})
        assert result["isError"] is False
        assert len(json.loads(result["content"][-1]["text"])["result"]) == 100  # (2025-03-26: text only)


def linked_call(base: str, arguments: dict[str, Any]) -> Any:
    """``tools/call arr`` sessionless, of a version with ``resource_link`` blocks (without the header: 2025-03-26,
    which has none, and gets a text naming the URI)."""
    return post_rpc(base, "tools/call", {"name": "arr", "arguments": arguments},
                    headers={"MCP-Protocol-Version": "2025-06-18"})["result"]


def test_over_mcp_a_large_result_is_still_kept_as_a_resource() -> None:
    server = build(max_inline_bytes=1000)  # the default way over MCP: a link, not a refusal
    with serve(server) as base:
        result = linked_call(base, {"n": 10_000})
        assert result["isError"] is False
        assert any(block["type"] == "resource_link" for block in result["content"])


def test_over_mcp_a_result_larger_than_the_store_is_refused_before_it_is_written_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arrays, "CHUNK_CELLS", 1000)
    server = build(max_inline_bytes=1000)
    server.core.result_store.max_bytes = 50_000  # (the store holds 512 MiB: too much for a test)
    with serve(server) as base:
        for n in (20_000, 5000):  # too large from its shape; too large once partly written
            result = call_tool_http(base, "arr", {"n": n})
            assert result["isError"] is True
            text = result["content"][0]["text"]
            assert "more than the server keeps for large results (50000)" in text, text
            assert 50_000 < int(text.split("at least ")[1].split()[0]) < 100_000
        result = linked_call(base, {"n": 2000})  # kept, and linked
        assert any(block["type"] == "resource_link" for block in result["content"])


@pytest.mark.parametrize("value", [0, -1, 1.5, "1", True])
def test_max_result_bytes_must_be_a_positive_number_of_bytes_or_none(value: object) -> None:
    refusal = f"max_result_bytes must be a number of bytes >= 1, or None for no limit, not {value!r}"
    with pytest.raises(ConfigurationError, match=f"^{re.escape(refusal)}"):
        MCPServer("x", max_result_bytes=value)  # type: ignore[arg-type]
    assert MCPServer("x", max_result_bytes=None).core.result_options.max_result_bytes is None
