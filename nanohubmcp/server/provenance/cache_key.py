"""The result cache's canonical form of a call's arguments: what its key hashes.

A number is one value whatever its spelling (``3`` and ``3.0``), ``-0.0`` stays apart from ``0``,
a tuple is the array it is sent as; arguments JSON has no form for (NaN, an infinity, a set, an
object, a dict key that is not a string: only ``server.call`` passes them) raise
:class:`NoJSONForm`, and the cache layer (:mod:`.cache_layer`) runs such a call uncached.

This module owns the normalisation only; the layer composes the key (the tool's code hash, what
that code reaches, who asks, the protocol version and route) around it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ...protocol.encoded import Encoded
from ...protocol.nesting import WALK_DEPTH, NestedTooDeep

__all__ = ["NoJSONForm", "canonical"]


class NoJSONForm(ValueError):
    """An argument of a call (from ``server.call``: a client sends JSON only) that JSON has no
    form for: NaN or an infinity, an object JSON cannot write, a dict key that is not a string."""


def canonical(value: Any) -> bytes:
    """Canonical JSON of ``value`` (sorted keys, no spaces, UTF-8): what cache keys hash.

    A number is one value whatever its spelling: ``3`` and ``3.0`` are the same JSON Schema number (and
    integer), so an integral float is written as the integer (a float parameter called with 3 and with
    3.0 is one cached call). ``-0.0`` is not another spelling of ``0``: Python code tells them apart
    (``1/x``, ``math.atan2``, ``math.copysign``), so it is written ``-0.0``. A tuple is written as the
    array it is sent as; a ``str``, ``int`` or ``float`` subclass as its JSON value.

    Raises:
        NestedTooDeep: dicts and lists nested more than ``nesting.WALK_DEPTH`` levels deep (a
            client's JSON never is: it is refused past ``MAX_JSON_DEPTH`` when parsed; a call from
            the serving program itself may be).
        NoJSONForm: a value JSON has no form for — NaN, an infinity, a dict key that is not a
            ``str``, any other object (a set, a path, an instance of a class): its text is no key
            (two different objects may print alike), so the caller does not cache the call. Only
            ``server.call`` can pass one.
    """
    try:
        text = json.dumps(_numbers(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                          allow_nan=False, default=_no_form)
    except TypeError as exc:  # an object JSON cannot write, or dict keys that do not sort
        raise NoJSONForm(str(exc)) from None
    except ValueError as exc:
        if isinstance(exc, (NoJSONForm, NestedTooDeep)):
            raise
        raise NoJSONForm(str(exc)) from None  # NaN or an infinity
    return text.encode()


def _no_form(value: object) -> object:
    raise NoJSONForm(f"{type(value).__name__} has no JSON form")


def _numbers(value: Any, depth: int = 0) -> Any:
    if type(value) is Encoded:  # an array's or table's data, kept as its JSON text
        value = value.value
    if type(value) is float:
        # an integral float is the integer (3.0 is 3), except -0.0: its sign is part of the value
        if value.is_integer() and (value or math.copysign(1.0, value) > 0):
            return int(value)
        return value
    if isinstance(value, (dict, list, tuple)) and depth >= WALK_DEPTH:
        raise NestedTooDeep(f"the value is nested more than {WALK_DEPTH} levels deep")
    if isinstance(value, dict):
        for key in value:
            if type(key) is not str:  # JSON writes 1 and "1" alike: not the same argument
                raise NoJSONForm(f"a dict key of type {type(key).__name__}")
        return {key: _numbers(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_numbers(item, depth + 1) for item in value]
    return value
