"""A bare number or bool result's text is its JSON spelling (written without the encoder for the
exact types), NaN and the infinities spelled out; a subclass (an IntEnum member) reads as JSON
writes it, not as its repr."""

from __future__ import annotations

import enum
import json
import math
import random
import sys

from nanohubmcp.protocol.content import scalar_text


class Level(enum.IntEnum):
    HIGH = 3


def test_floats_ints_and_bools_read_as_json_writes_them() -> None:
    rng = random.Random(28)
    values: list[object] = [0.0, -0.0, 0.1, 1e16, 1e-7, 5e-324, sys.float_info.max, 2.0**53, 1, -7, 10**30, True, False]
    values += [rng.uniform(-1e20, 1e20) for _ in range(2000)]
    values += [rng.random() * 10.0 ** rng.randint(-300, 300) for _ in range(2000)]
    for value in values:
        assert scalar_text(value) == json.dumps(value), value  # type: ignore[arg-type]


def test_non_finite_floats_and_subclasses() -> None:
    assert [scalar_text(v) for v in (math.nan, math.inf, -math.inf)] == ["NaN", "Infinity", "-Infinity"]
    assert scalar_text(Level.HIGH) == "3"
