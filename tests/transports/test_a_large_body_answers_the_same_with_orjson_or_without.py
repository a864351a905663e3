"""A body of 1 MiB or more is answered the same, byte for byte, whether orjson (the ``fast`` extra)
parses it or the standard library does: numbers beyond 64 bits, lone surrogate escapes, duplicate
keys, a byte order mark, whitespace, invalid UTF-8, NaN, nesting past the limit, over-long ids and
progress tokens, every syntax error — on ``POST /mcp`` and ``POST /tools/<name>`` (REST), padded
with a large string or a large array to take the worker-thread path. And that path does parse with
orjson when it is installed, on every HTTP transport (a profile hook on the server's threads sees
the call).

Found in a user trial (S7): Python's JSON parser holds the interpreter lock for a many-MB body's
whole parse, stalling every other client; orjson holds it for less time.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

import pytest
from streams.stream_wire import Wire
from support import rpc_message, serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol import accelerator
from nanohubmcp.server.wire.request import LARGE_MESSAGE_BYTES

orjson = pytest.importorskip("orjson")

PADS = {  # the worker-thread path: a body of LARGE_MESSAGE_BYTES or more
    "string": b'"' + b"p" * LARGE_MESSAGE_BYTES + b'"',
    "array": b"[" + b"12345," * (LARGE_MESSAGE_BYTES // 6) + b"0]",
}

VALUES = [
    b"18446744073709551615", b"18446744073709551616", b"-9223372036854775809", b"-9999999999999999999",
    b"123456789012345678901234567890", b"1" * 5000, b"NaN", b"[Infinity]", b"1e400", b"1e-400", b"-0", b"-0.0",
    b"5e-324", b"0.0021060533511106927", b"1.7976931348623157e308", b'"\\ud800"', b'{"\\udc00": "\\ud83d\\ude00"}',
    b'{"a":1,"b":2,"a":[3]}', b'"\\u0000\xef\xbf\xbf\x7f"', b'"a\x01"', b'"\xff"', b'"\xed\xa0\x80"',
    b"[" * 120 + b"]" * 120, b"[" * 130 + b"]" * 130, b"[" * 1100 + b"]" * 1100, b"[1,]", b"01", b"tru",
]


def call(value: bytes, pad: bytes, *, request_id: bytes = b"1", meta: bytes = b"{}") -> bytes:
    return (b'{"jsonrpc":"2.0","id":' + request_id + b',"method":"tools/call","params":{"_meta":' + meta
            + b',"name":"echo","arguments":{"pad":' + pad + b',"value":' + value + b"}}}")


def mcp_bodies(pad: bytes) -> list[bytes]:
    plain = call(b"1", pad)
    return [
        *(call(value, pad) for value in VALUES),
        b"\xef\xbb\xbf" + plain, plain + b" \r\n\t", b"\n " + plain, plain + b"\x0c", plain + b"\x00", plain + b"}",
        call(b"1", pad, request_id=b"18446744073709551616"), call(b"1", pad, request_id=b"9" * 300),
        call(b"1", pad, request_id=b'"' + b"i" * 300 + b'"'),
        call(b"1", pad, meta=b'{"progressToken":"' + b"t" * 300 + b'"}'),
        call(b"1", pad, meta=b'{"progressToken":-18446744073709551617}'),
        call(b"1", pad).replace(b'"id":1,', b'"id":1,"id":"two",'),
    ]


def build() -> MCPServer:
    server = MCPServer("large-bodies", provenance=False)

    def echo(value: Any = None, pad: Any = None) -> str:
        """What value was read as (its repr: int or float, key order, lone surrogates)."""
        return repr(value)

    server.add_tool(echo)
    return server


@pytest.fixture
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url
    accelerator.use_accelerator(True)


def post(base: str, path: str, body: bytes) -> tuple[int, bytes]:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.request("POST", parts.path + path, body, {"Content-Type": "application/json",
                                                             "Accept": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def both_ways(base: str, path: str, body: bytes) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
    assert len(body) >= LARGE_MESSAGE_BYTES
    answers = []
    for accelerated in (True, False):
        accelerator.use_accelerator(accelerated)
        answers.append(post(base, path, body))
    return answers[0], answers[1]


@pytest.mark.parametrize("pad", PADS)
def test_a_large_json_rpc_body_is_answered_the_same_with_orjson_or_without(base: str, pad: str) -> None:
    for body in mcp_bodies(PADS[pad]):
        fast, standard = both_ways(base, "mcp", body)
        assert fast == standard, body[:200]


def test_a_large_rest_body_is_answered_the_same_with_orjson_or_without(base: str) -> None:
    for value in VALUES:
        body = b'{"pad":' + PADS["string"] + b',"value":' + value + b"}"
        for sent in (body, b"\xef\xbb\xbf" + body, body + b"\n", body + b","):
            fast, standard = both_ways(base, "tools/echo", sent)
            assert fast == standard, sent[:200]


def test_what_orjson_reads_otherwise_is_answered_as_python_reads_it(base: str) -> None:
    """Not both ways wrong alike: the values orjson would change come back as Python reads them."""
    def answer(body: bytes) -> Any:
        return json.loads(both_ways(base, "mcp", body)[0][1])

    pad = PADS["string"]
    assert answer(call(b"18446744073709551616", pad))["result"]["content"][0]["text"] == "18446744073709551616"
    assert answer(call(b'"\\ud800"', pad))["result"]["content"][0]["text"] == repr("\ud800")
    assert answer(call(b'{"a":1,"b":2,"a":[3]}', pad))["result"]["content"][0]["text"] == "{'a': [3], 'b': 2}"
    assert answer(call(b"1", pad, request_id=b"18446744073709551616"))["id"] == 18446744073709551616
    assert answer(b"\xef\xbb\xbf" + call(b"1", pad))["result"]["content"][0]["text"] == "1"
    assert answer(call(b"[" * 130 + b"]" * 130, pad))["error"]["code"] == -32700
    assert answer(call(b"1", pad, request_id=b"9" * 300))["error"]["code"] == -32600
    assert answer(call(b"1", pad, meta=b'{"progressToken":"' + b"t" * 300 + b'"}'))["error"]["code"] == -32602


class OrjsonCalls:
    """Counts ``orjson.loads`` calls on the threads started after it is installed (the server's)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "c_call" and arg is orjson.loads:
            with self.lock:
                self.count += 1

    def taken(self) -> int:
        with self.lock:
            count, self.count = self.count, 0
        return count


@pytest.fixture
def profiled() -> Iterator[tuple[OrjsonCalls, str]]:
    calls = OrjsonCalls()
    threading.setprofile(calls)  # the server's loop thread and its worker threads start after this
    try:
        with serve(build()) as url:
            yield calls, url
    finally:
        threading.setprofile(None)
        accelerator.use_accelerator(True)


def test_every_http_transport_parses_a_large_body_with_orjson_when_installed(profiled: tuple[OrjsonCalls, str]) -> None:
    calls, base = profiled
    body = call(b"[1, 2.5]", PADS["array"])
    assert post(base, "mcp", body)[0] == 200
    assert calls.taken() == 1
    assert post(base, "mcp", call(b"[1, 2.5]", b'"small"'))[0] == 200  # a small body: the standard parse
    assert calls.taken() == 0
    assert post(base, "tools/echo", b'{"pad":' + PADS["string"] + b',"value":1}')[0] == 200
    assert calls.taken() == 1
    wire = Wire(base)
    events, endpoint = wire.legacy()
    try:
        hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        assert wire.legacy_post(endpoint, rpc_message("initialize", hello, 0)).status == 202
        events.until(lambda m: isinstance(m, dict) and m.get("id") == 0)
        calls.taken()
        assert wire.legacy_post(endpoint, json.loads(body)).status == 202
        events.until(lambda m: isinstance(m, dict) and m.get("id") == 1, timeout=60)
        assert calls.taken() == 1
    finally:
        events.close()
    accelerator.use_accelerator(False)
    assert post(base, "mcp", body)[0] == 200
    assert calls.taken() == 0
