"""``encoded.Encoded``: JSON text made once (an array's or a table's data) is copied verbatim into
what ``dumps``/``dumpb`` write, where its value stands, and reads as that value everywhere else."""

from __future__ import annotations

import copy
import json
import pickle
import threading
from typing import Any

import pytest

from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.encoded import Encoded


def test_encoded_text_is_written_where_its_value_stands_with_the_same_bytes() -> None:
    value = {"result": [1.5, None, 'é"\n', {"k": [True, 2]}]}
    text = jsonenc.dumps(value["result"])
    envelope = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": text}], "structuredContent": {"result": Encoded(text)}},
    }
    plain = {**envelope, "result": {**envelope["result"], "structuredContent": value}}
    assert jsonenc.dumps(envelope) == jsonenc.dumps(plain)
    assert jsonenc.dumpb(envelope) == jsonenc.dumpb(plain)
    several = [Encoded("1"), Encoded("[]"), {"x": Encoded("null")}]
    assert jsonenc.dumps(several) == '[1,[],{"x":null}]'
    assert jsonenc.dumps(Encoded('{"a":1}')) == '{"a":1}'


def test_the_rest_of_the_value_keeps_the_encoders_rules() -> None:
    encoded = Encoded("[1,2]")
    # non-finite floats elsewhere still become null (the scrubbing retry keeps the text)
    assert jsonenc.dumps({"a": float("nan"), "b": encoded, "c": [float("inf")]}) == '{"a":null,"b":[1,2],"c":[null]}'
    # what JSON cannot hold is refused with the standard library's message
    with pytest.raises(TypeError, match=r"^Object of type set is not JSON serializable$"):
        jsonenc.dumps({"a": encoded, "b": {1}})
    circular: list[object] = [encoded]
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        jsonenc.dumps(circular)
    # nothing of a failed call is left over for the next one
    assert jsonenc.dumps({"b": Encoded("3")}) == '{"b":3}'


def test_a_lone_surrogate_in_encoded_text_is_written_as_an_escape_like_any_other() -> None:
    text = jsonenc.dumps(["\ud800", "é"])
    assert jsonenc.dumpb({"r": Encoded(text), "s": "\udfff"}) == jsonenc.dumpb(
        {"r": ["\ud800", "é"], "s": "\udfff"}
    )
    assert jsonenc.dumpb({"r": Encoded(text)}) == b'{"r":["\\ud800","\\u00e9"]}'


def test_an_encoded_value_reads_as_its_value_and_plain_gives_the_value_itself() -> None:
    encoded = Encoded('[{"a":1.5},null]')
    assert encoded == [{"a": 1.5}, None]
    assert [{"a": 1.5}, None] == encoded  # noqa: SIM300  # the list's side of the comparison
    assert {"result": encoded} == {"result": [{"a": 1.5}, None]}
    assert encoded[0]["a"] == 1.5
    assert len(encoded) == 2
    assert None in encoded
    assert list(encoded)[1] is None
    assert encoded != [1]
    result = {"content": [], "structuredContent": {"result": encoded}, "other": [1, {"x": "y"}]}
    plain = jsonenc.plain(result)
    assert plain == {"content": [], "structuredContent": {"result": [{"a": 1.5}, None]}, "other": [1, {"x": "y"}]}
    assert type(plain["structuredContent"]["result"]) is list
    assert json.dumps(plain)  # what other JSON libraries need
    untouched = {"a": [1, {"b": 2}]}
    assert jsonenc.plain(untouched) is untouched  # nothing to replace: no copy
    with pytest.raises(TypeError):
        hash(encoded)


@pytest.mark.parametrize("copy_of", [copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_a_copy_reads_as_the_same_value_whether_or_not_the_original_was_read(copy_of: Any) -> None:
    unread, read = Encoded('[1,{"a":null}]'), Encoded("[2]")
    assert read == [2]
    assert copy_of(unread) == [1, {"a": None}]
    assert copy_of(read) == [2]
    assert jsonenc.dumps({"r": copy_of(unread)}) == '{"r":[1,{"a":null}]}'


def test_threads_encoding_at_once_each_get_their_own_text() -> None:
    failures: list[str] = []

    def encode(n: int) -> None:
        for i in range(300):
            value = {"n": n, "data": Encoded(f"[{n},{i}]"), "more": [Encoded(str(i))]}
            if jsonenc.dumps(value) != f'{{"n":{n},"data":[{n},{i}],"more":[{i}]}}':
                failures.append(f"{n}/{i}")

    threads = [threading.Thread(target=encode, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
