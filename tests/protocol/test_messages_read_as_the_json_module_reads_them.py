"""``jsondec.loads`` (every message a transport hands the core) reads a body exactly as the ``json``
module's strict decoder does — the same value, or the same error — whether or not whitespace
surrounds the value (its fast path calls the C scanner directly and leaves everything else to the
decoder), and ``classify`` makes the same message of it."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from nanohubmcp.errors import InvalidParams, InvalidRequest, ParseError
from nanohubmcp.protocol import jsondec, jsonrpc

CALL = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,"b":-2}}}'

SAME_AS_JSON = [
    CALL,
    " " + CALL,
    CALL + "\n",
    "\t\r\n " + CALL + " \r\n\t",
    "[1, 2.5, \"x\", null, true]",
    "  {}  ",
    '"\\ud800"',  # a lone surrogate escape: the decoder keeps it
    "123456789012345678901234567890",  # beyond 64 bits: still an int
    "-0.0",
]

REFUSED = [
    "",
    "   ",
    CALL + " x",
    CALL + CALL,
    "{\"a\": }",
    "[1, 2",
    "NaN",
    "[Infinity]",
    "1e400",
    CALL + "\x0b",  # a vertical tab is whitespace to Python, not to JSON
]


def strict(text: str) -> object:
    return json.JSONDecoder(parse_constant=jsondec._no_constants, parse_float=jsondec._finite_float).decode(text)


@pytest.mark.parametrize("text", SAME_AS_JSON)
def test_a_body_reads_as_the_strict_decoder_reads_it(text: str) -> None:
    expected = strict(text)
    for body in (text, text.encode()):
        value = jsondec.loads(body)
        assert value == expected
        assert type(value) is type(expected)


@pytest.mark.parametrize("text", REFUSED)
def test_what_the_decoder_refuses_is_refused_with_its_words(text: str) -> None:
    assert refusal(lambda: strict(text)) == refusal(lambda: jsondec.loads(text.encode()))


def refusal(read: Callable[[], object]) -> str:
    try:
        read()
    except ValueError as exc:  # json.JSONDecodeError, or a constant / an infinite number refused
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError("not refused")


def test_a_byte_order_mark_is_skipped_and_bad_utf8_is_refused() -> None:
    assert jsondec.loads(b"\xef\xbb\xbf" + CALL.encode())["id"] == 7
    with pytest.raises(UnicodeDecodeError):
        jsondec.loads(b'{"a": "\xff"}')


def test_classify_makes_the_same_messages_and_refusals() -> None:
    message = jsonrpc.classify(jsondec.loads(CALL))
    assert (message.kind, message.method, message.id, message.params["name"]) == ("request", "tools/call", 7, "add")
    note = jsonrpc.classify({"jsonrpc": "2.0", "method": "notifications/initialized", "params": None})
    assert (note.kind, note.id, note.params) == ("notification", None, {})
    assert jsonrpc.classify({"jsonrpc": "2.0", "id": "a", "result": {}}).kind == "response"
    for bad in ({"jsonrpc": "2.0", "id": True, "method": "ping"}, {"jsonrpc": "2.0", "id": 1.0, "method": "ping"},
                {"jsonrpc": "2.0", "id": 1, "method": None}, {"jsonrpc": "2.0", "id": 1, "method": ""},
                {"jsonrpc": "2.0", "id": 1}, {"jsonrpc": "1.0", "id": 1, "method": "ping"}):
        with pytest.raises(InvalidRequest):
            jsonrpc.classify(bad)
    with pytest.raises(InvalidParams):
        jsonrpc.classify({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]})
    with pytest.raises(ParseError):
        jsonrpc.parse_body(b"   ")
