"""The reading and writing of JSON hold integers to 4,300 digits when the process lifted Python's own limit
(``sys.set_int_max_str_digits(0)``, as ``PYTHONINTMAXSTRDIGITS=0``): a body's parse on both paths (a large body's
by orjson where installed), and the one encoder. Digits in a string are text, and an integer at the limit is read
and written. The look for a longer one reads a text again only for a run of digits where a number may stand (not
one inside a string), and a bare int is told too long before it is written (without timing: the text it would
have made is never allocated). (tests/transports/test_a_long_integer_is_refused_whatever_pythons_own_limit_says.py:
a server.)
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Iterator

import pytest

from nanohubmcp.errors import ParseError
from nanohubmcp.protocol import content, jsondec, jsonenc, jsonrpc, long_ints
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


RUN = "7" * 4_301


@pytest.mark.usefixtures("lifted")
@pytest.mark.parametrize("text", [
    f'{{"s":"{RUN}"}}', f'["pi is 3.{RUN}"]', f'["x{RUN}","-{RUN}"]', f'[1.5e{RUN}]', f'{{"s":"{RUN[:9]} {RUN}"}}',
])
def test_a_run_of_digits_inside_a_string_or_a_float_is_not_taken_for_a_number(text: str) -> None:
    # (was True: the body or result was read again, by the slower reader); a text written without whitespace
    # (the encoder's) has digits after a space in a string too
    assert not long_ints.unguarded_written(text)
    assert not long_ints.unguarded_written(text.replace("s", "\u00e9"))  # (positions in UTF-8)
    if " " not in text:
        assert not long_ints.unguarded(text)
        assert not long_ints.unguarded(text.encode())


@pytest.mark.usefixtures("lifted")
@pytest.mark.parametrize("text", [
    RUN, f"-{RUN}", f'{{"a":{RUN}}}', f'[1,-{RUN}]', f"[{RUN}]", f'{{"a": {RUN}}}', f'[\n\t{RUN}]',
    f'{{"s":"{RUN}","n":{RUN}}}', f'{{"s":"a:{RUN}"}}',  # (a string's digits after a colon: read to tell)
])
def test_a_run_of_digits_where_a_number_may_stand_is_looked_at(text: str) -> None:
    assert long_ints.unguarded(text)
    assert long_ints.unguarded(text.encode())
    assert long_ints.unguarded_written(text) or " " in text or "\n" in text
    assert long_ints.unguarded(b"\xef\xbb\xbf" + text.encode()) or text[0] not in "-0123456789"


def test_under_pythons_own_limit_nothing_is_looked_at() -> None:
    assert not long_ints.unguarded(f"[{RUN}]")
    assert not long_ints.unguarded_written(f"[{RUN}]")


@pytest.mark.usefixtures("lifted")
def test_a_body_with_a_byte_order_mark_before_a_longer_integer_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as refused:
        jsonrpc.parse_body(b"\xef\xbb\xbf" + b"9" * 4_301)
    assert refused.value.message == REFUSED


@pytest.mark.usefixtures("lifted")
def test_the_encoder_writes_a_longer_run_of_digits_in_a_string_even_after_a_colon() -> None:
    value = {"s": RUN, "t": f"a:{RUN}", "u": f"[-{RUN}", "n": 10**4_300 - 1}
    assert jsondec.loads(jsonenc.dumps(value)) == value


@pytest.mark.usefixtures("lifted")
def test_a_bare_int_is_told_too_long_before_it_is_written() -> None:
    value = 10**200_000  # (its text: 200,001 characters, which Python writes in time growing with their square)
    tracemalloc.start()
    try:
        with pytest.raises(LongInteger, match="the number is an int of over 4,300 digits"):
            content.scalar_text(value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000, peak  # its text never made (it was written first, then refused)
    assert content.scalar_text(10**4_300 - 1) == "9" * 4_300
    assert content.scalar_text(-(10**4_300) + 1) == "-" + "9" * 4_300
    with pytest.raises(LongInteger, match="the number is an int of over 4,300 digits"):
        content.scalar_text(-(10**4_300))
