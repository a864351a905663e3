"""The reading and writing of JSON hold integers to 4,300 digits when the process lifted Python's own limit
(``sys.set_int_max_str_digits(0)``, as ``PYTHONINTMAXSTRDIGITS=0``): a body's parse on both paths (a large body's
by orjson where installed), and the one encoder. Digits in a string are text, and an integer at the limit is read
and written. (tests/transports/test_a_long_integer_is_refused_whatever_pythons_own_limit_says.py: a server.)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from nanohubmcp.errors import ParseError
from nanohubmcp.protocol import jsonenc, jsonrpc
from nanohubmcp.protocol.long_ints import LongInteger

REFUSED = "Parse error: a number has more than 4300 digits; send it as a string"


def body(value: bytes, padding: int = 0) -> bytes:
    return (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"f","arguments":{"v":' + value
            + b',"pad":"' + b"x" * padding + b'"}}}')


@pytest.fixture(params=[0, 10_000], ids=["limit 0", "limit 10000"])
def lifted(request: pytest.FixtureRequest) -> Iterator[None]:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(request.param)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


@pytest.mark.usefixtures("lifted")
@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
def test_a_longer_integer_in_a_body_is_a_parse_error(large: bool) -> None:
    padding = 2**20 if large else 0  # a body of 1 MiB or more: the large path (orjson where installed)
    for value in (b"9" * 4_301, b"-" + b"1" * 5_000, b"[1,2," + b"7" * 9_000 + b"]"):
        with pytest.raises(ParseError) as refused:
            jsonrpc.parse_body(body(value, padding), large=large)
        assert refused.value.message == REFUSED
    read = jsonrpc.parse_body(body(b'["' + b"9" * 9_000 + b'",' + b"9" * 4_300 + b"]", padding), large=large)
    assert read["params"]["arguments"]["v"] == ["9" * 9_000, 10**4_300 - 1]


@pytest.mark.usefixtures("lifted")
def test_the_encoder_refuses_a_longer_int_and_writes_one_at_the_limit() -> None:
    for value in (10**4_300, {"a": [1, -(10**5_000)]}):
        with pytest.raises(LongInteger, match="the value holds an int of over 4,300 digits, which a client's JSON "
                                              "reader refuses; return it as a string or in fewer digits"):
            jsonenc.dumps(value)
    assert jsonenc.dumps([10**4_300 - 1, "1" * 9_000]) == f'[{"9" * 4_300},"{"1" * 9_000}"]'


def test_under_a_lower_limit_of_pythons_the_message_says_that_limit() -> None:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1_000)
    try:
        with pytest.raises(ParseError, match="a number has more than 1000 digits; send it as a string"):
            jsonrpc.parse_body(body(b"9" * 1_001))
    finally:
        sys.set_int_max_str_digits(before)
