"""A large body (parsed on a worker thread) is read by orjson when it is installed, and reads exactly
as the standard library's strict parse reads it: the same value (types, key order, the winner of a
duplicate key), or the same ``ParseError`` to the word. What orjson reads differently (integers
beyond 64 bits, lone surrogate escapes, a byte order mark) or refuses goes to the standard parse.

Found in a user trial (S7): Python's parser holds the interpreter lock for the whole parse of a
many-MB body, so every other client waited seconds; orjson holds it for less time.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest

from nanohubmcp.errors import ParseError
from nanohubmcp.protocol import accelerator, jsondec, jsonrpc, large_json

orjson = pytest.importorskip("orjson")

CALL = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"f","arguments":{"v":%s}}}'

VALUES = [
    b"18446744073709551615", b"18446744073709551616", b"-9223372036854775808", b"-9223372036854775809",
    b"9999999999999999999", b"-9999999999999999999", b"123456789012345678901234567890", b"1" * 5000,
    b"NaN", b"[Infinity]", b"-Infinity", b"1e400", b"-1e400", b"1.7976931348623159e308", b"1e-400",
    b"-0", b"-0.0", b"0.1", b"5e-324", b"2.2250738585072011e-308", b"1.7976931348623157e308",
    b"0.0021060533511106927", b"12345678901234567890.5", b"1e0000000000000000000002", b"0.1e1",
    b'"\\ud800"', b'"\\udc00x"', b'{"\\ud800": 1}', b'"\\ud83d\\ude00"', b'"\\u0000"', b'"\\x"',
    b'{"a":1,"b":2,"a":3}', b'{"a":{"x":1},"a":[2]}', b'"12345678901234567890"',
    b'"\xef\xbf\xbf"', b'"\x7f"', b'"a\x01"', b'"\xff"', b'"\xed\xa0\x80"', b'"\xc0\xaf"',
    b"[" * 124 + b"]" * 124, b"[" * 126 + b"]" * 126, b"[" * 1100 + b"]" * 1100,
    b"[1,]", b"01", b"1.", b".5", b"+1", b"tru", b"'a'", b"/* no */ 1",
]

BODIES = [
    *(CALL % value for value in VALUES),
    b"\xef\xbb\xbf" + CALL % b"1", CALL % b"1" + b" \r\n\t", b" \n" + CALL % b"1",
    CALL % b"1" + b"\x0c", CALL % b"1" + b"\x00", CALL % b"1" + b"x", CALL % b"1" + CALL % b"2",
    b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', b'{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}',
    b"", b"   ", b"\xef\xbb\xbf", b"null", b"[]",
]


@pytest.fixture(autouse=True)
def accelerated() -> Iterator[None]:
    assert accelerator.use_accelerator(True)
    yield
    accelerator.use_accelerator(True)


def outcome(read: Callable[..., Any], *args: Any, **options: Any) -> tuple[str, ...]:
    try:
        return ("read", repr(read(*args, **options)))  # repr: int and float, -0.0, key order, lone surrogates all show
    except ParseError as exc:
        return ("refused", exc.message)
    except (ValueError, UnicodeDecodeError) as exc:
        return ("refused", type(exc).__name__, str(exc))


@pytest.mark.parametrize("body", BODIES)
def test_a_large_body_reads_as_the_standard_parse_reads_it(body: bytes) -> None:
    assert outcome(jsonrpc.parse_body, body, large=True) == outcome(jsonrpc.parse_body, body)
    text = body.decode(errors="surrogateescape")  # a str body (bad UTF-8 as lone surrogates)
    assert outcome(jsonrpc.parse_body, text, large=True) == outcome(jsonrpc.parse_body, text)


def test_what_the_corpus_holds_reads_as_python_reads_it() -> None:
    """The cases orjson reads otherwise, read the standard way (not both paths wrong alike)."""
    def value(text: bytes) -> Any:
        return jsonrpc.parse_body(CALL % text, large=True)["params"]["arguments"]["v"]

    assert value(b"18446744073709551616") == 2**64
    assert type(value(b"-9223372036854775809")) is int
    assert value(b'"\\ud800"') == "\ud800"
    assert list(value(b'{"a":1,"b":2,"a":3}').items()) == [("a", 3), ("b", 2)]
    assert jsonrpc.parse_body(b"\xef\xbb\xbf" + CALL % b"1", large=True)["id"] == 7
    with pytest.raises(ParseError, match="nested more than 128 levels"):
        jsonrpc.parse_body(CALL % (b"[" * 1100 + b"]" * 1100), large=True)
    with pytest.raises(ParseError, match="digits; send it as a string"):
        jsonrpc.parse_body(CALL % (b"1" * 5000), large=True)


def test_mutated_bodies_read_alike() -> None:
    seeds = [CALL % b'[1,2.5,-0,"x\\u00e9\\ud83d\\ude00",true,false,null,{"b":{}},{"a":1,"a":1e5}]',
             b'[18446744073709551615,-9223372036854775808,0.1,1E-7,123456789012345678]',
             b'"\\ud800\\udc00"', b'\xef\xbb\xbf{"k":"\xc3\xa9\xf0\x9f\x98\x80"}']
    alphabet = (b' \t\n\r\x0b\x0c\x00\x7f{}[]:,."\\-+eE0123456789truefalsenullNaInfity'
                b"\xef\xbb\xbf\xff\xc3\xa9\xed\xa0\x80u")
    rng = random.Random(40)
    for _ in range(20_000):
        text = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            at, what = rng.randrange(len(text) + 1), rng.random()
            if what < 0.34:
                text[at:at] = bytes([rng.choice(alphabet)])
            elif text:
                at = min(at, len(text) - 1)
                if what < 0.67:
                    del text[at]
                else:
                    text[at] = rng.choice(alphabet)
        body = bytes(text)
        assert outcome(large_json.loads_large, body) == outcome(jsondec.loads, body), body


@pytest.mark.parametrize(("text", "long"), [
    (b"[12345678901234567890]", True), (b"12345678901234567890", True), (b"[-1234567890123456789]", True),
    (b"-1234567890123456789", True), (b'"12345678901234567890"', True), (b"[1e00000000000000000001]", True),
    (b"[1e-0000000000000000001]", True), (b"[18446744073709551616]", True), (b"[-9223372036854775809]", True),
    (b"[1234567890123456789]", False), (b"1234567890123456789", False), (b"[9999999999999999999]", False),
    (b"[-123456789012345678]", False), (b'"1234567890123456789"', False), (b"[123456789012345678]", False),
    (b"[0.1234567890123456789012]", False), (b"[-0.0000000000000000000001]", False), (b"[1.5]", False),
])
def test_a_run_of_20_digits_or_a_sign_and_19_not_after_a_decimal_point_is_left_to_the_standard_parse(
        text: bytes, long: bool) -> None:
    assert large_json.may_hold_a_long_integer(text) is long


EDGES = [
    b"9999999999999999999", b"-999999999999999999", b"1000000000000000000", b"-100000000000000000",
    b"9223372036854775807", b"9223372036854775808", b"-922337203685477580", b"1844674407370955161",
    b"1234567890123456789.5", b"1234567890123456789e5", b"9999999999999999999e-19", b"1.9999999999999999999",
    b"1e0000000000000000308", b"1e0000000000000000309", b"0e9999999999999999999", b"1e9999999999999999999",
    b"9999999999999999999.0", b"1999999999999999999e-2", b"0.1234567890123456789012345", b"5e-324",
    b"1234567890123456789E-400", b"1.5E+0000000000000000002", b"-0", b"0",
]


@pytest.mark.parametrize("number", EDGES)
def test_a_19_digit_number_orjson_reads_is_the_standard_parses_value(number: bytes) -> None:
    text = b'{"v":[%s,%s]}' % (number, number)
    assert not large_json.may_hold_a_long_integer(text)  # read by orjson
    assert outcome(large_json.loads_large, text) == outcome(jsondec.loads, text)


def test_random_numbers_of_up_to_19_digits_read_as_the_standard_parse_reads_them() -> None:
    rng = random.Random(22)
    for _ in range(20_000):
        digits = rng.randint(1, 19)
        whole = str(rng.randrange(1, 10**digits)) if rng.random() < 0.9 else "0"
        if rng.random() < 0.3 and digits < 19:
            whole = "-" + whole
        fraction = exponent = ""
        if rng.random() < 0.5:
            fraction = "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        if rng.random() < 0.5:
            power = str(rng.randrange(10 ** rng.randint(1, 19))).zfill(rng.randint(1, 19))
            exponent = "e" + rng.choice(["", "+"]) + power
        text = f"[{whole}{fraction}{exponent}]".encode()
        assert not large_json.may_hold_a_long_integer(text), text  # read by orjson
        assert outcome(large_json.loads_large, text) == outcome(jsondec.loads, text), text


def orjson_calls(parse: Callable[[], object]) -> int:
    """How many times ``parse`` called ``orjson.loads`` (a profile hook sees every call of a builtin)."""
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "c_call" and arg is orjson.loads:
            calls += 1

    sys.setprofile(profile)
    try:
        parse()
    finally:
        sys.setprofile(None)
    return calls


def test_a_large_body_is_read_by_orjson_when_it_is_installed() -> None:
    body = CALL % b'[1, 2.5, "x", {"a": null}]'
    assert orjson_calls(lambda: jsonrpc.parse_body(body, large=True)) == 1
    assert orjson_calls(lambda: jsonrpc.parse_body(body)) == 0  # a small body: the standard parse, on the loop
    assert orjson_calls(lambda: jsonrpc.parse_body(CALL % b"18446744073709551616", large=True)) == 0
    accelerator.use_accelerator(False)
    assert orjson_calls(lambda: jsonrpc.parse_body(body, large=True)) == 0
