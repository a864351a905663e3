"""What the encoder writes for a value JSON has no form for: a non-finite float, or a foreign object.

``NaN`` and ``±Infinity`` are not JSON (RFC 8259 § 6); Python's ``json`` writes them anyway. The encoder
(``protocol.jsonenc``) writes them as ``null`` (what ``JSON.stringify`` writes; a structured result keeps its
shape): :func:`scrub`. A numpy array or scalar, a pandas frame (which a middleware may put into a result; the
handlers convert a tool's own) is written as the converter the server gives (:func:`convert_values_with`)
makes it: :func:`json_ready`; without one, or for anything it does not convert, the encoder raises
TypeError.

This module owns that converter (one per process, set by the server) and those two conversions; it writes
no JSON and imports only ``protocol.nesting`` (the walk's depth bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .nesting import WALK_DEPTH, walked_too_deep

__all__ = ["convert_values_with", "json_ready", "scrub"]


_converter: Callable[[object], Any] | None = None
"""What makes a value JSON has no form for JSON-ready (:func:`convert_values_with`), or None."""


def convert_values_with(converter: Callable[[object], Any]) -> None:
    """Write each value JSON has no form for (a numpy array, a pandas frame) as ``converter`` makes it.

    ``converter(value)`` returns the JSON-ready value, or ``value`` itself when it has none (then
    :class:`TypeError`, as for any such value). It is called only for what the writer cannot write
    itself, never for a message made of JSON values. The result converters
    (:func:`nanohubmcp.server.results.convert.jsonable`) are given here by the server: a value a
    middleware put into a result is then written as the same value returned by a tool.
    """
    global _converter
    _converter = converter


def json_ready(value: object) -> Any:
    """``value``, which JSON has no form for, as the converter makes it, non-finite floats in it as null:
    the encoder's ``default`` for a value it does not splice.

    Raises:
        TypeError: no converter is given, or it has no form for ``value`` (it hands ``value`` back, or one
            of the same type, which would come back here for ever).
    """
    converter = _converter
    if converter is not None:
        made = converter(value)
        # (one of the same type again would be handed back here for ever: a RecursionError, "nested too deeply")
        if made is not value and type(made) is not type(value):
            return scrub(made)
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def scrub(value: object, depth: int = 0) -> Any:
    """``value`` with each non-finite float in its dicts, lists and tuples as None (tuples as lists): what
    the encoder writes for a value holding one, only once its strict writer refused it (``Encoded`` text
    holds none).

    Raises:
        NestedTooDeep: dicts and lists nested more than :data:`~.nesting.WALK_DEPTH` levels deep.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (dict, list, tuple)) and depth >= WALK_DEPTH:
        raise walked_too_deep()
    if isinstance(value, dict):
        return {k: scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, depth + 1) for v in value]
    return value
