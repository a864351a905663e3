"""A numpy object array holding a value JSON cannot hold is refused naming the element, as a dict's value is.

Before, a tool returning ``np.array([1, {1, 2}], dtype=object)`` failed with the encoder's bare "Object of type set
is not JSON serializable" (no index, no advice) and an ERROR traceback of the server's frames, while the same set in
a dict got "the tool's result is not JSON-serialisable: $['s'] is a set; use dicts, lists, ...". Now the array's
elements go through that rule (``json_values.refused_by_name``): the message names the element where it sits in the
array's JSON (``$[1]``, ``$[1][0]['k']``), for an array inlined, kept a part at a time, or read as a resource; and a
failure for the author's value (the array's, the dict's alike) is logged as one line, without a traceback.
"""

from __future__ import annotations

import logging

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory
from nanohubmcp.testing.client import RpcError

np = pytest.importorskip("numpy")

ADVICE = "; use dicts, lists, str, numbers, booleans and None (or return a ToolResult)"
REFUSED = "the tool's result is not JSON-serialisable: "
LONG = 200_000


def build() -> MCPServer:
    server = MCPServer("objects", provenance=False, max_inline_bytes=4096)

    @server.tool()
    def with_set() -> object:
        """An object array holding a set."""
        return np.array([1, {1, 2}], dtype=object)

    @server.tool()
    def deep() -> object:
        """A 2-d object array: an arbitrary object, and a dict element holding a set."""
        grid = np.empty((2, 2), dtype=object)
        grid[0, 0], grid[0, 1], grid[1, 1] = 1.5, "x", None
        grid[1, 0] = {"k": {3}}
        return grid

    @server.tool()
    def opaque() -> object:
        """An object array holding an arbitrary object."""
        return np.array(["a", object()], dtype=object)

    @server.tool()
    def long() -> object:
        """An object array too long to inline (kept a part at a time) whose last element is a set."""
        values = np.arange(LONG).astype(object)
        values[-1] = {LONG}
        return values

    @server.tool()
    def in_a_dict() -> object:
        """The same array inside a dict."""
        return {"values": np.array([1, {1, 2}], dtype=object)}

    @server.tool()
    def a_dict() -> object:
        """A dict holding a set."""
        return {"s": {1, 2}}

    @server.resource("objects://set")
    def kept() -> object:
        """An object array holding a set, as a resource."""
        return np.array([[1, {1}]], dtype=object)

    return server


def refused(result: dict) -> str:
    assert result["isError"], result
    assert "structuredContent" not in result, result
    return result["content"][0]["text"]


def failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "nanohubmcp.tool" and r.levelno >= logging.ERROR]


def test_an_object_array_element_is_named_by_its_index_and_type(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="nanohubmcp"), in_memory(build()) as client:
        assert refused(client.call_tool("with_set")) == f"{REFUSED}$[1] is a set{ADVICE}"
        assert refused(client.call_tool("deep")) == f"{REFUSED}$[1][0]['k'] is a set{ADVICE}"
        assert refused(client.call_tool("opaque")) == f"{REFUSED}$[1] is a object{ADVICE}"
        assert refused(client.call_tool("in_a_dict")) == f"{REFUSED}$['values'][1] is a set{ADVICE}"
    logged = failures(caplog)
    assert len(logged) == 4, caplog.text
    assert "$[1] is a set" in logged[0].getMessage()
    assert all(r.exc_info is None for r in logged), caplog.text  # the author's value: no traceback to read
    assert "Traceback" not in caplog.text
    assert "not JSON serializable" not in caplog.text  # (the encoder's bare words)


def test_an_array_kept_a_part_at_a_time_names_its_last_element() -> None:
    with in_memory(build()) as client:
        assert refused(client.call_tool("long")) == f"{REFUSED}$[{LONG - 1}] is a set{ADVICE}"
        assert client.call_tool("with_set")["isError"]  # the server goes on answering


def test_a_dicts_set_is_logged_as_one_line_too(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="nanohubmcp"), in_memory(build()) as client:
        assert refused(client.call_tool("a_dict")) == f"{REFUSED}$['s'] is a set{ADVICE}"
    (logged,) = failures(caplog)
    assert logged.getMessage().endswith(f"{REFUSED}$['s'] is a set{ADVICE}")
    assert logged.exc_info is None, caplog.text


def test_a_resources_object_array_names_the_element() -> None:
    with in_memory(build()) as client, pytest.raises(RpcError) as raised:
        client.read_resource("objects://set")
    assert "the resource's value is not JSON-serialisable: $[0][1] is a set" in str(raised.value)


@pytest.mark.anyio
async def test_the_official_client_reads_the_named_refusal_over_http(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="nanohubmcp"), serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            one = await client.call_tool("with_set", {})
            grid = await client.call_tool("deep", {})
    assert one.is_error
    assert one.content[0].text == f"{REFUSED}$[1] is a set{ADVICE}"
    assert grid.is_error
    assert grid.content[0].text == f"{REFUSED}$[1][0]['k'] is a set{ADVICE}"
    assert [r.exc_info for r in failures(caplog)] == [None, None], caplog.text
