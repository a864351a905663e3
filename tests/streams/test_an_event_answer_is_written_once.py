"""An answer going as one SSE event is written as JSON once (issue 28; review r30 F5).

To refuse an answer over what a client reads in one event (``max_event_bytes``, 1 MiB), the server wrote the
whole result as JSON to learn its size, threw the text away, and the transport wrote it again: every legacy-SSE
answer, every call with a progress token over Streamable HTTP, was written twice on the event loop; and a result
far over the bound was written whole only to be refused. Now the measured text is the one sent (the bytes those of
writing the message, with the provenance record's URI added after the measure), and a result whose strings and
lists alone are over the bound is refused without being written ("N or more bytes").

(An answer under ``written.KEPT_FROM``, 512 characters, is still written twice: carrying its text costs more.)
The count is the encoder's own walk: a dict subclass's ``items()``, which the standard library's C writer calls
each time it writes one, kept by reference in an embedded resource block. A real server, raw HTTP and the
official ``mcp`` client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from stream_wire import Wire
from support import mcp_client, serve, tool_call_message

from nanohubmcp import MCPServer, ToolResult
from nanohubmcp.protocol import jsonenc

pytestmark = pytest.mark.timeout(120)

WALKS = [0]
VERSION = "2025-11-25"  # (the legacy session's and the plain POST's: the same answer)
TEXT = 'é€😀 "quoted"\n\ttab \\ 1.5e-7 ' * 4  # characters of 1 to 4 UTF-8 bytes, and escaped ones


class Walked(dict):  # type: ignore[type-arg]
    """A dict whose every writing by the JSON encoder is counted (the C writer calls ``items()`` once each)."""

    def items(self) -> Any:
        WALKS[0] += 1
        return super().items()


def build(**options: Any) -> MCPServer:
    server = MCPServer("written once", **options)

    @server.tool()
    def embedded() -> ToolResult:
        """An embedded resource of some 1,500 characters, its block written by the encoder (counted)."""
        return ToolResult([{"type": "resource", "resource": Walked({"uri": "data://x", "text": TEXT * 10})}])

    @server.tool(output_schema={"type": "object"})
    def large(n: int) -> ToolResult:
        """A result held to an output schema (never linked) of about 2n bytes, with a counted block."""
        return ToolResult([{"type": "resource", "resource": Walked({"uri": "data://x", "text": "small"})},
                           "é" * n], structured_content={"values": [0.5] * n})

    @server.tool()
    def array() -> Any:
        """A numpy array (its values written once, by orjson when it is in use)."""
        import numpy as np

        return np.linspace(0.0, 1.0, 300) ** 3

    @server.tool()
    def numbers() -> dict[str, Any]:
        """Floats, non-ASCII and escapes."""
        return {"x": [0.1, 1e300, -2.5e-8, 3], "text": TEXT, "nested": {"a": [True, None, "ü"]}}

    return server


async def walks_of(url: str, path: str, transport: str, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    async with mcp_client(url + path, transport=transport) as client:
        WALKS[0] = 0
        result = await client.call_tool(tool, arguments)
        return WALKS[0], result


def test_a_legacy_sse_answer_is_written_once_as_a_json_answer_is() -> None:
    with serve(build(provenance=False)) as url:  # (the record's writer would write it too, on its own thread)
        as_json, _ = asyncio.run(walks_of(url, "mcp", "http", "embedded", {}))
        as_event, result = asyncio.run(walks_of(url, "sse", "sse", "embedded", {}))
    assert result.content[0].resource.text == TEXT * 10
    assert as_json == 1  # (the answer's writing, its one walk)
    assert as_event == as_json  # (before: 2, measured then written again)


def test_an_answer_clearly_over_the_bound_is_refused_without_being_written() -> None:
    with serve(build(provenance=False)) as url:
        as_json, whole = asyncio.run(walks_of(url, "mcp", "http", "large", {"n": 1_000_000}))
        as_event, refused = asyncio.run(walks_of(url, "sse", "sse", "large", {"n": 1_000_000}))
    assert not whole.is_error
    assert as_json == 1
    assert refused.is_error
    said = refused.content[0].text
    assert said.startswith("tool 'large' answered "), said
    size, more = said.split(" answered ")[1].split()[:3:2]
    assert more == "more", said
    assert 2_000_000 < int(size) < 4_000_000, said
    assert as_event == 0  # (before: 1, the whole result written to learn its size)


@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "stdlib"])
def test_the_events_bytes_are_those_writing_the_message_makes(fast: bool) -> None:
    from nanohubmcp.protocol.accelerator import use_accelerator

    pytest.importorskip("numpy")
    if use_accelerator(fast) != fast:
        use_accelerator(True)
        pytest.skip("orjson is not installed")
    with serve(build(provenance=False)) as url, contextlib.ExitStack() as restore:
        restore.callback(use_accelerator, True)  # (no record id: the two answers' bytes compare whole)
        wire = Wire(url)
        stream, endpoint = wire.legacy()
        try:
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
            assert wire.legacy_post(endpoint, initialize).status == 202
            assert stream.next_message() is not None
            assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"}).status == 202
            for request_id, tool in enumerate(("numbers", "embedded", "array"), start=2):
                assert wire.legacy_post(endpoint, tool_call_message(tool, {}, request_id)).status == 202
                event = stream.next()
                while event is not None and not event.data:
                    event = stream.next()
                assert event is not None
                body = wire.post(tool_call_message(tool, {}, request_id), None, path="/", version=VERSION,
                                 accept="application/json").body
                assert event.data.encode() == body.strip()
                assert event.data.encode() == jsonenc.dumpb(json.loads(event.data))
        finally:
            stream.close()


def test_what_the_applications_middleware_changes_inside_the_result_is_sent() -> None:
    server = build(provenance=False)

    async def stamp(request: Any, call_next: Any) -> Any:
        result = await call_next(request)
        if request.method == "tools/call":
            result["content"].append({"type": "text", "text": "seen by the middleware"})  # (inside: no member added)
        return result

    server.add_middleware(stamp)
    with serve(server) as url:
        _, result = asyncio.run(walks_of(url, "sse", "sse", "embedded", {}))
    assert [block.type for block in result.content] == ["resource", "text"]
    assert result.content[1].text == "seen by the middleware"


def test_a_provenance_records_uri_added_after_the_measure_is_written_with_it() -> None:
    with serve(build()) as url:
        _, result = asyncio.run(walks_of(url, "sse", "sse", "numbers", {}))
    assert result.structured_content["x"] == [0.1, 1e300, -2.5e-8, 3]
    assert str(result.meta["io.nanohub/provenance"]).startswith("nanohubmcp://provenance/")


def test_the_kept_text_is_the_results_writing_while_only_members_were_added() -> None:
    from nanohubmcp.server.results.written import Written

    result: dict[str, Any] = {"content": [{"type": "text", "text": TEXT}], "isError": False, "_meta": {"a": 1}}
    written = Written(result, jsonenc.dumps(result))
    assert written.now(result) == jsonenc.dumps(result)
    result["resultType"] = "complete"
    assert written.now(result) == jsonenc.dumps(result)
    assert written.now({**result, "more": [1]}) == jsonenc.dumps({**result, "more": [1]})  # (a copy, a member added)
    assert written.now({"content": result["content"]}) is None  # (a member left out)
    result["_meta"]["b"] = 2  # (a change inside _meta: written again)
    assert written.now(result) is None
    fresh: dict[str, Any] = {"content": [], "isError": False}
    kept = Written(fresh, jsonenc.dumps(fresh))
    fresh["isError"] = True  # (a member replaced)
    assert kept.now(fresh) is None


@pytest.mark.parametrize("value", [
    "", "é€😀", 'a "b" \\ \n', [], {}, [1, 2.5, None, True], {"a": [[]], "b": {"c": "d" * 40}},
    {"content": [{"type": "text", "text": "x" * 5000}], "structuredContent": {"v": list(range(300))}},
    [{"k": i} for i in range(50)], {str(i): i for i in range(40)}, [[[[["deep", 1]]]]],
])
def test_the_least_bytes_of_a_value_are_never_more_than_its_json(value: Any) -> None:
    from nanohubmcp.protocol.least_size import least_bytes

    assert least_bytes(value) <= len(jsonenc.dumpb(value))
