"""A record's ``result_digest`` is the SHA-256 of the result (without ``_meta``) as the wire writes
it (``jsonenc.dumpb``): compact, keys in the result's order, text as UTF-8, NaN as null; the
same for a result whose data is pre-encoded and for the plain one (docs/how-to/provenance.md)."""

from __future__ import annotations

import hashlib
import json
import math

from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.provenance import result_text

RESULTS = [
    {"content": [{"type": "text", "text": "3.0"}], "isError": False},
    {"isError": False, "content": [{"type": "text", "text": "Grüße, 電子 ✓"}], "structuredContent": {"b": 1, "a": 2.5}},
    {"content": [], "structuredContent": {"result": [1.5, math.nan, -math.inf]}, "isError": False},
    {"content": [{"type": "text", "text": "lone \ud800 surrogate"}]},
    {"content": [], "structuredContent": {"result": Encoded('[{"x":1.5,"name":"a"},{"x":null,"name":"b"}]')}},
]


def wire_digest(result: dict[str, object]) -> str:
    body = {key: value for key, value in result.items() if key != "_meta"}
    return "sha256:" + hashlib.sha256(jsonenc.dumpb(body)).hexdigest()


def test_the_digest_is_the_sha256_of_the_wire_json_without_meta() -> None:
    for result in RESULTS:
        digest, kept = result_text.digest_of({**result, "_meta": {"io.nanohub/provenance": "nanohubmcp://provenance/x"}})
        assert digest == wire_digest(result), result
        assert kept is not None
        assert json.loads(kept) == json.loads(jsonenc.dumpb(result))


def test_key_order_and_values_change_the_digest_but_a_pre_encoded_form_does_not() -> None:
    first, second = RESULTS[1], dict(reversed(list(RESULTS[1].items())))
    assert result_text.digest_of(first)[0] != result_text.digest_of(second)[0]  # the order the wire writes
    encoded = RESULTS[4]
    assert result_text.digest_of(encoded) == result_text.digest_of(jsonenc.plain(encoded))
    changed = json.loads(jsonenc.dumps(encoded))
    changed["structuredContent"]["result"][1]["x"] = 0
    assert result_text.digest_of(changed)[0] != result_text.digest_of(encoded)[0]


def test_a_large_result_is_digested_not_kept() -> None:
    big = {"content": [{"type": "text", "text": "x" * (result_text.MAX_KEPT_RESULT_BYTES + 1)}]}
    digest, kept = result_text.digest_of(big)
    assert kept is None
    assert digest == wire_digest(big)
