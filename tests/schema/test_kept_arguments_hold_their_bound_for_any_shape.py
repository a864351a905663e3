"""A record keeps at most 64 KiB of a call's arguments whatever their number and shape (review r21 M5).

Replacing the largest values by ``"[not stored: N bytes of JSON, sha256:...]"`` went on, value after value,
until the total fitted; a marker (about 100 characters) is larger than a small value, so arguments made of
many small values grew with each replacement and ended all replaced: 100,000 arguments of 1.6 MB were kept
as 11.5 MB, in a job's record and in a provenance record. A value whose JSON is not longer than its marker
is now never replaced, and arguments whose names and small values alone are over the bound are kept as one
marker naming the size, number and digest of them all.

The functions themselves, on real values of every shape; the texts compared with the standard library's
``json``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from nanohubmcp.schema.kept_arguments import (
    MAX_KEPT_ARGUMENTS_BYTES,
    NOT_STORED_KEY,
    arguments_json,
    arguments_text,
    kept_arguments,
)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


SHAPES: dict[str, dict[str, Any]] = {
    "many small arguments (**kwargs)": {f"k{i:06d}": i for i in range(100_000)},
    "many arguments just over a marker's size": {f"k{i:05d}": "v" * 120 for i in range(2_000)},
    "many medium values": {f"k{i:04d}": "v" * 300 for i in range(400)},
    "many arguments just under a marker's size": {f"k{i:05d}": "v" * 90 for i in range(2_000)},
    "one large value and small ones": {"label": "run 7", "data": "x" * 1_000_000, "n": 3},
    "a large nested value": {"grid": {"rows": [[i / 7] * 50 for i in range(2_000)]}, "name": "g"},
    "several large values": {f"part{i}": "y" * (40_000 + i) for i in range(10)},
    "long names": {"n" * 70_000: 1, "m": 2},
    "many long names": {f"{i:06d}" + "n" * 200: 0 for i in range(1_000)},
    "text in other scripts": {"note": "漢字é" * 30_000, "tag": "ü"},
    "a lone surrogate": {"raw": "\ud800" * 20_000, "ok": True},
    "not a number": {"values": [float("nan"), float("inf")] * 20_000},
}


@pytest.mark.parametrize("name", SHAPES)
def test_the_kept_text_is_within_the_bound_and_is_the_kept_arguments(name: str) -> None:
    arguments = SHAPES[name]
    text = arguments_text(arguments)
    kept = kept_arguments(arguments)
    assert len(text.encode()) <= MAX_KEPT_ARGUMENTS_BYTES, f"{name}: {len(text.encode())} bytes kept"
    assert text == arguments_json(kept)
    assert kept_arguments(kept) is kept  # kept arguments are kept as they are


@pytest.mark.parametrize("name", SHAPES)
def test_a_value_is_never_replaced_by_a_longer_marker(name: str) -> None:
    arguments = SHAPES[name]
    kept = kept_arguments(arguments)
    if NOT_STORED_KEY in kept and NOT_STORED_KEY not in arguments:
        return  # all of them stand for themselves (below)
    for key, value in kept.items():
        if value is not arguments[key]:
            assert len(compact(value)) < len(arguments_json(arguments[key])), key


def test_many_small_arguments_are_one_marker_of_them_all() -> None:
    arguments = SHAPES["many small arguments (**kwargs)"]
    whole = compact(arguments)
    digest = hashlib.sha256(whole.encode()).hexdigest()
    marker = f"{len(whole)} bytes of JSON in 100000 arguments, sha256:{digest}"
    assert kept_arguments(arguments) == {NOT_STORED_KEY: marker}


def test_a_large_value_is_its_size_and_digest_and_the_rest_stays() -> None:
    arguments = SHAPES["one large value and small ones"]
    value = compact(arguments["data"])
    assert kept_arguments(arguments) == {
        "label": "run 7", "n": 3,
        "data": f"[not stored: {len(value)} bytes of JSON, sha256:{hashlib.sha256(value.encode()).hexdigest()}]",
    }


def test_values_a_marker_would_not_shorten_enough_are_stood_for_all_at_once() -> None:
    for name in ("many arguments just under a marker's size", "many arguments just over a marker's size"):
        assert list(kept_arguments(SHAPES[name])) == [NOT_STORED_KEY], name


def test_medium_values_are_replaced_only_as_far_as_needed() -> None:
    kept = kept_arguments(SHAPES["many medium values"])
    replaced = [key for key, value in kept.items() if value.startswith("[not stored: ")]
    assert list(kept) == list(SHAPES["many medium values"])
    assert 0 < len(replaced) < len(kept)
    assert len(arguments_json(kept).encode()) > MAX_KEPT_ARGUMENTS_BYTES - 300  # one fewer would not fit


@pytest.mark.parametrize("arguments", [
    {}, {"a": 1}, {"a": "é\ud800", "b": [1, {"x": None}], "c": float("nan")}, {1: "int key", 2.5: "float key", None: 0},
])
def test_arguments_that_fit_are_kept_as_sent_and_written_as_the_writer_writes_them(arguments: dict[Any, Any]) -> None:
    assert kept_arguments(arguments) is arguments
    assert arguments_text(arguments) == arguments_json(arguments)
