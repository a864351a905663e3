"""A pre-encoded array's JSON text is written, sent and hashed as a part of its own, never copied whole.

A REST answer of ten million floats (192 MB of JSON) peaked at 1.3 GB over the idle server (trial25 F3):
the answer's text was copied into one string with its envelope, then into bytes, and the call's provenance
record wrote the whole result three times more to hash it. ``jsonenc.dumps_parts`` gives the same text as
parts, the pre-encoded text one of them (the same object), so the answer goes to the socket and into the
digest piece by piece; the bytes and the digest are those of the whole text.
"""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.provenance.result_text import kept_and_digest, result_text
from nanohubmcp.server.provenance.rows import digest_text

DATA = "[" + ",".join(str(i / 3) for i in range(50_000)) + "]"

VALUES: list[Any] = [
    {"result": Encoded(DATA)},
    {"content": [{"type": "text", "text": "é summary"}], "structuredContent": {"result": Encoded(DATA)}},
    [Encoded("1"), {"b": Encoded("[2]")}, "x", float("nan")],
    {"plain": [1, 2.5, "three"]},
]


@pytest.mark.parametrize("value", VALUES)
def test_the_parts_are_the_text_and_the_bytes(value: Any) -> None:
    assert "".join(jsonenc.dumps_parts(value)) == jsonenc.dumps(value)
    assert b"".join(jsonenc.dumpb_parts(value)) == jsonenc.dumpb(value)


def test_the_pre_encoded_text_is_a_part_of_its_own_not_a_copy() -> None:
    encoded = Encoded(DATA)
    parts = jsonenc.dumps_parts({"structuredContent": {"result": encoded}})
    assert any(part is encoded.text for part in parts)
    assert sum(map(len, parts)) == len(jsonenc.dumps({"structuredContent": {"result": encoded}}))


def test_a_lone_surrogate_is_sent_as_u_fffd_in_one_part() -> None:
    value = {"text": "\ud800", "data": Encoded("[1]")}
    assert jsonenc.dumpb_parts(value) == [jsonenc.dumpb({"text": "\ufffd", "data": [1]})]


def test_a_lone_surrogate_the_protocol_echoes_is_escaped_as_dumpb_does() -> None:
    value = {"id": "\ud800", "result": {"text": "\udce9", "data": Encoded("[1]")}}
    assert jsonenc.dumpb_parts(value) == [jsonenc.dumpb({"id": "\ud800", "result": {"text": "\ufffd", "data": [1]}})]


@pytest.mark.parametrize("value", VALUES[:2])
def test_a_large_results_digest_is_that_of_its_whole_text(value: dict[str, Any]) -> None:
    kept, digest = kept_and_digest(value)
    assert kept is None  # too large to keep in the record
    assert digest == digest_text(result_text(value))


def test_a_small_result_is_kept_whole() -> None:
    value = {"structuredContent": {"result": Encoded("[1,2]")}}
    assert kept_and_digest(value) == (result_text(value), None)
