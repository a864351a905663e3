"""``server.add_middleware(layer, stream_kept_text=True)``: a layer that passes a kept read's text on
untouched gets it as the transport writes it, a piece at a time (a ``text_pieces.TextPieces``), so the server
never reads the text whole for it; the client gets the same text.

It takes effect only when every middleware of the server has the keyword: a layer without it sees the text
as a ``str`` (tests/pipeline/test_middleware_sees_a_kept_reads_text_as_a_str.py), and so then does every
other layer, whichever order they were added in. A transport that never writes the text in pieces (the
in-memory client) gives a ``str`` to such a layer too. Before, a layer had to set the request's internal
``STREAMS_TEXT`` slot, and a layer outside it that asked for nothing got the open file as well.
The memory the pieces spare is measured in
tests/transports/test_a_kept_results_text_is_sent_as_an_sse_event_a_piece_at_a_time.py.

A text holding UTF-16 surrogates (a pair's two halves, as a tool joining UTF-16 code units returns them, or a
lone one) reached such a layer as a ``str``, its file read whole (trial38 T5); it is pieces too, the client
reading the pair as its character and a lone surrogate as U+FFFD, as before.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve, stdio_in_process

from nanohubmcp import MCPServer, Request
from nanohubmcp.protocol.text_pieces import TextPieces
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.timeout(60)

TEXT = ('é "quoted" \\ 😀\n' * 12_000) + "end"  # about 200 KB: kept, and within the SDK's SSE event limit
PIECE = 4096
_HEAD = "é\ud83d\ude00" + TEXT[:-3]
_PAD = -(len(_HEAD.encode("utf-8", "surrogatepass")) + 3) % PIECE  # the next pair's high half (3 bytes) ends a piece
HALVES = _HEAD + "x" * _PAD + "\ud83d\ude00 \ud800 end"
TEXTS = {"text": (TEXT, TEXT), "surrogates": (HALVES, HALVES.replace("\ud83d\ude00", "😀").replace("\ud800", "\ufffd"))}
"""The text a tool returns, and as the client reads it."""


class Seen:
    """A middleware noting the type of each kept read's text it passes on (and nothing else)."""

    def __init__(self) -> None:
        self.types: list[type] = []

    async def __call__(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method == "resources/read":
            self.types.append(type(result["contents"][0]["text"]))
        return result


def kept_text_server(tmp_path: Path, *layers: tuple[Seen, bool], returned: str = TEXT) -> MCPServer:
    """A server with a tool whose text result (``returned``) is kept, and ``layers`` (each with its
    ``stream_kept_text``)."""
    server = MCPServer("pieces", state_dir=str(tmp_path), max_inline_bytes=1000, provenance=False)
    server.core.result_store.read_piece_bytes = PIECE  # read in many pieces

    @server.tool()
    def text() -> str:
        """A long text."""
        return returned

    for layer, streams in layers:
        server.add_middleware(layer, stream_kept_text=streams)
    return server


async def read_with_the_official_client(server: MCPServer, transport: str) -> str:
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + ("mcp" if transport == "http" else "sse"), transport=transport) as client:
            called = await client.call_tool("text", {})
            link = next(block for block in called.content if block.type == "resource_link")
            read = await client.read_resource(link.uri)
    return read.contents[0].text


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("kind", TEXTS)
async def test_a_layer_with_the_keyword_gets_the_pieces_and_the_client_the_text(
        tmp_path: Path, transport: str, kind: str) -> None:
    returned, read = TEXTS[kind]
    seen = Seen()
    server = kept_text_server(tmp_path, (seen, True), returned=returned)
    assert await read_with_the_official_client(server, transport) == read
    assert len(seen.types) == 1
    assert issubclass(seen.types[0], TextPieces)


@pytest.mark.parametrize("kind", TEXTS)
def test_over_stdio_too(tmp_path: Path, kind: str) -> None:
    returned, read = TEXTS[kind]
    seen = Seen()
    server = kept_text_server(tmp_path, (seen, True))
    uri, _ = server.core.result_store.keep_parts(lambda: iter([returned]), "text/plain", ".txt", None)
    with stdio_in_process(server) as (in_w, written):
        message = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": uri}}
        os.write(in_w, json.dumps(message).encode() + b"\n")
        answer = written.get(timeout=30)
    assert answer["result"]["contents"][0]["text"] == read
    assert len(seen.types) == 1
    assert issubclass(seen.types[0], TextPieces)


@pytest.mark.anyio
@pytest.mark.parametrize("streaming_first", [True, False], ids=["streaming-outer", "streaming-inner"])
async def test_beside_a_layer_without_it_every_layer_gets_a_str(tmp_path: Path, streaming_first: bool) -> None:
    streaming, plain = Seen(), Seen()
    layers = [(streaming, True), (plain, False)]
    server = kept_text_server(tmp_path, *(layers if streaming_first else layers[::-1]))
    assert await read_with_the_official_client(server, "http") == TEXT
    assert streaming.types == plain.types == [str]


@pytest.mark.anyio
async def test_in_memory_the_layer_gets_a_str(tmp_path: Path) -> None:
    seen = Seen()
    server = kept_text_server(tmp_path, (seen, True))
    uri, _ = server.core.result_store.keep_parts(lambda: iter([TEXT]), "text/plain", ".txt", None)
    async with MemoryClient(server) as client:
        contents = await client.read_resource(uri)
    assert contents[0]["text"] == TEXT
    assert seen.types == [str]


@pytest.mark.anyio
async def test_the_decorator_takes_the_keyword_too(tmp_path: Path) -> None:
    # Review r20 N6: only add_middleware could pass it; @server.middleware(stream_kept_text=True) now does.
    seen = Seen()
    server = kept_text_server(tmp_path)
    assert server.middleware(stream_kept_text=True)(seen) is seen
    assert await read_with_the_official_client(server, "http") == TEXT
    assert len(seen.types) == 1
    assert issubclass(seen.types[0], TextPieces)

    @server.middleware
    async def plain(request: Request, call_next: CallNext) -> dict[str, Any]:  # the bare form, as before
        return await call_next(request)

    assert len(server.core.dispatcher.pipeline.middleware) == 2


def test_the_keyword_takes_a_bool_only(tmp_path: Path) -> None:
    server = MCPServer("pieces", state_dir=str(tmp_path), provenance=False)
    with pytest.raises(TypeError, match="stream_kept_text must be True or False, not 'yes'"):
        server.add_middleware(Seen(), stream_kept_text="yes")  # type: ignore[arg-type]
    assert server.core.dispatcher.pipeline.middleware == ()
