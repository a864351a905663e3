"""A compact JSON writer built once: the standard library's C encoder, without ``json.dumps``' per-call setup.

``json.dumps`` and ``JSONEncoder.encode`` build the C encoder anew at every call, about half the cost of
writing a small value. :func:`compact_writer` builds it a single time, with compact separators and text
left unescaped (UTF-8), for a writer called often: the encoder's own (``protocol.jsonenc``), provenance's
columns and kept arguments. What the writer makes of a value JSON has no form for is its caller's
``default``, as ``json.dumps``'s.

This module owns that construction only; it imports nothing of the package.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["compact_chunks", "compact_writer"]


def compact_writer(default: Callable[[Any], object], *, allow_nan: bool) -> Callable[[Any], str]:
    """A compact JSON writer (``separators=(",", ":")``, text as UTF-8, not escaped) made once: the
    standard library's C encoder built a single time, where ``json.dumps`` and
    ``JSONEncoder.encode`` build one per call (about half the cost of writing a small value).

    It does not look for cycles: a value that contains itself raises RecursionError, not
    ValueError. ``default`` is called for what JSON has no form for, as ``json.dumps``'s is.
    """
    chunks = compact_chunks(default, allow_nan=allow_nan)
    return lambda value: "".join(chunks(value, 0))


def compact_chunks(default: Callable[[Any], object], *, allow_nan: bool,
                   sort_keys: bool = False) -> Callable[[Any, int], Sequence[str]]:
    """:func:`compact_writer`'s encoder itself: ``chunks(value, 0)`` is the pieces its text is joined
    from (one Python call fewer per value where a caller joins them inline). ``sort_keys``: an object's
    members in the order of their names (one text for equal values, whatever order their keys came in)."""
    make = getattr(json.encoder, "c_make_encoder", None)  # not in the stubs: CPython's C part of json
    if make is None:  # an interpreter without the C accelerator
        encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=allow_nan, default=default,
                                   sort_keys=sort_keys)
        encode = encoder.encode
        return lambda value, _level: (encode(value),)
    chunks: Callable[[Any, int], Sequence[str]] = make(
        None, default, json.encoder.encode_basestring, None, ":", ",", sort_keys, False, allow_nan
    )
    return chunks
