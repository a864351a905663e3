"""The helpers that walk a value or its JSON text never reach Python's recursion limit: a value
nested 5000 levels deep made the encoder, ``first_bad`` (which names the part JSON cannot hold),
``jsonenc.plain`` and the cache key's ``cache_key.canonical`` each raise RecursionError (chained
into one another's tracebacks); each now stops at its bound with ``NestedTooDeep`` (a ValueError
saying the limit) or, for ``first_bad``, by naming the level it did not look into. And the text
check that holds results to ``MAX_JSON_DEPTH`` agrees with the depth of the value written."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from nanohubmcp.protocol import jsonenc, nesting
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.protocol.nesting import MAX_JSON_DEPTH, NestedTooDeep
from nanohubmcp.server.provenance import cache_key
from nanohubmcp.server.results import json_values

DEEP = 5000


def chain(levels: int, bottom: Any = None) -> Any:
    value: Any = [] if bottom is None else [bottom]
    for index in range(levels - 1):
        value = [value] if index % 2 else {"a": value}
    return value


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


STRINGS = ["a", "[", "]", "{", "}", '"', "\\", '\\"', '"]', "[\\", '\\\\"[', "", "é", "\n"]


def random_value(rng: random.Random, level: int, most: int) -> Any:
    roll = rng.random()
    if level >= most or roll < 0.3:
        return rng.choice([1, 2.5, None, True, rng.choice(STRINGS) + rng.choice(STRINGS)])
    items = rng.randint(0, 4)
    if roll < 0.65:
        return [random_value(rng, level + 1, most) for _ in range(items)]
    return {rng.choice(STRINGS) + str(i): random_value(rng, level + 1, most) for i in range(items)}


def random_chain(rng: random.Random, links: int) -> Any:
    value = random_value(rng, 0, 3)
    for _ in range(links):
        value = [value, rng.choice(STRINGS)] if rng.random() < 0.5 else {rng.choice(STRINGS): value}
    return value


def test_the_text_check_agrees_with_the_depth_of_the_value_written() -> None:
    rng = random.Random(20261203)
    for case in range(200):
        if case % 2:
            value = random_chain(rng, rng.randint(MAX_JSON_DEPTH - 8, MAX_JSON_DEPTH + 12))
        else:  # many short chains side by side (peeled a level a pass), some past the limit
            value = [random_chain(rng, rng.randint(0, MAX_JSON_DEPTH + 12)) for _ in range(rng.randint(1, 12))]
        for text in (json.dumps(value), jsonenc.dumps(value)):  # \u escapes, and text as it is
            for limit in (5, MAX_JSON_DEPTH):
                assert nesting.nested_deeper_than(text, limit) is (depth(value) > limit), (limit, text[:80])
                assert nesting.nested_deeper_than(text.encode(), limit) is (depth(value) > limit)


def test_a_value_past_the_limit_is_refused_by_the_result_check_and_one_within_is_kept() -> None:
    within = chain(MAX_JSON_DEPTH)
    assert json_values.json_text(within, "the tool's result") == jsonenc.dumps(within)
    for levels in (MAX_JSON_DEPTH + 1, DEEP):
        with pytest.raises(NestedTooDeep, match=f"the tool's result is nested more than {MAX_JSON_DEPTH} levels"):
            json_values.json_text(chain(levels), "the tool's result")


def test_the_encoder_says_a_value_is_nested_too_deeply_instead_of_recursing() -> None:
    with pytest.raises(NestedTooDeep, match="nested too deeply to be written as JSON"):
        jsonenc.dumps(chain(DEEP))
    with pytest.raises(NestedTooDeep):  # NaN first: the scrubbing copy stops at its bound
        jsonenc.dumps([math.nan, chain(DEEP)])
    with pytest.raises(NestedTooDeep, match=f"the tool's result is nested more than {MAX_JSON_DEPTH} levels"):
        jsonenc.dumps_within_depth(chain(DEEP), "the tool's result")


def test_naming_the_part_json_cannot_hold_stops_at_the_limit() -> None:
    found = json_values.first_bad(chain(DEEP, bottom={1, 2}), "$", set())
    assert found is not None
    assert found[1] == json_values.TOO_DEEP
    assert found[0].count("[") == MAX_JSON_DEPTH
    # a set past the limit: the value is refused for its depth (numpy-style retry included)
    with pytest.raises(NestedTooDeep, match=f"nested more than {MAX_JSON_DEPTH} levels"):
        json_values.json_text(chain(DEEP, bottom={1, 2}), "the tool's result")
    with pytest.raises(TypeError, match=r"\$\['s'\] is a set"):  # within it, the part is named as before
        json_values.json_text({"s": {1}, "deep": chain(MAX_JSON_DEPTH - 1)}, "the tool's result")


def test_plain_copies_and_cache_keys_stop_at_their_bound() -> None:
    kept = chain(nesting.WALK_DEPTH - 1, bottom=Encoded("[1]"))
    assert jsonenc.dumps(jsonenc.plain(kept)) == jsonenc.dumps(kept)  # the Encoded inside is replaced
    with pytest.raises(NestedTooDeep):
        jsonenc.plain(chain(DEEP))
    assert cache_key.canonical({"x": chain(MAX_JSON_DEPTH)}) == json.dumps(
        {"x": chain(MAX_JSON_DEPTH)}, sort_keys=True, separators=(",", ":")
    ).encode()
    with pytest.raises(NestedTooDeep):
        cache_key.canonical({"x": chain(DEEP)})
