"""The arguments a sync function answered quickly: the inline lane's test of a call's arguments.

A function's run time depends on its arguments (a grid's size, a number of steps): that ``sleepy(s=0)`` took
microseconds says nothing of ``sleepy(s=10)``. So the worker pool's inline lane (:mod:`.workers`) runs a call on
the event loop only for arguments its function already answered quickly on the pool: each function (a tool, a
prompt, a resource, a completer: its key in the pool) keeps :class:`QuickArguments`, the fingerprints of the
arguments of its quick pool calls, the :data:`MAX_REMEMBERED` seen last. A fingerprint (:func:`fingerprint`) is the
arguments' JSON text, compact, an object's members in the order of their names; arguments that are no JSON value
or whose text is longer than :data:`MAX_FINGERPRINT_BYTES` have none, and never run on the loop.

The loop's test is first an equality with the arguments last seen quick (:attr:`QuickArguments.last`: a
``tools/call`` repeated with the same arguments costs a comparison, no text written), then the fingerprint's. The
equality is the fingerprint's, types and all (:func:`.invoke.same_json`, beside its one use, so that it costs the
call's path no module hop): Python's ``==`` holds ``{"x": 1}``,
``{"x": True}`` and ``{"x": 1.0}`` equal, three JSON texts a function may answer differently (until 2026-12-07
``x=true`` after ten quick ``x=1`` ran on the loop).
This module owns the fingerprint and the set; when a function qualifies, and when it loses the loop, is
:mod:`.workers`'s.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from ...protocol.compact_json import compact_chunks

__all__ = ["MAX_FINGERPRINT_BYTES", "MAX_REMEMBERED", "QuickArguments", "fingerprint"]

MAX_FINGERPRINT_BYTES = 512
"""The longest fingerprint (characters of the arguments' JSON text) kept: a call with longer arguments never runs
on the event loop (and no large argument is held for the test)."""
MAX_REMEMBERED = 256
"""The most argument fingerprints one function keeps; past it the least recently seen is forgotten (its next call
goes to the pool first)."""


def _no_json(value: object) -> object:
    raise TypeError(f"no JSON value: {type(value).__name__}")


_chunks = compact_chunks(_no_json, allow_nan=True, sort_keys=True)
_SCALARS = frozenset({int, float, bool, type(None)})


def fingerprint(arguments: Any) -> str | None:
    """The canonical text of ``arguments`` (a call's JSON arguments: objects' members sorted by name, compact),
    or None when they are no JSON value or their text would be longer than :data:`MAX_FINGERPRINT_BYTES`
    (told from a walk that stops there, never by writing the whole of a large value)."""
    if _left(arguments, MAX_FINGERPRINT_BYTES) < 0:
        return None
    try:
        text = "".join(_chunks(arguments, 0))
    except (TypeError, ValueError, RecursionError):  # (ValueError: an integer too long to write as text)
        return None
    return text if len(text) <= MAX_FINGERPRINT_BYTES else None


def _left(value: Any, budget: int) -> int:
    """``budget`` less about as many characters as ``value``'s JSON text takes; below 0 once it is over (or
    ``value`` is no JSON value), without reading further."""
    kind = type(value)
    if kind is str:
        return budget - len(value) - 2
    if kind in _SCALARS:
        return budget - (value.bit_length() // 3 + 1 if kind is int else 4)
    if kind is list or kind is tuple:
        budget -= 2
        for item in value:
            budget = _left(item, budget - 1)
            if budget < 0:
                break
        return budget
    if kind is dict:
        budget -= 2
        for name, item in value.items():
            if type(name) is not str:
                return -1
            budget = _left(item, budget - len(name) - 4)
            if budget < 0:
                break
        return budget
    return -1


class QuickArguments:
    """The fingerprints of the arguments one function answered quickly on the worker pool, the
    :data:`MAX_REMEMBERED` seen last. Thread-safe: the pool's workers add, the event loop asks."""

    __slots__ = ("_last_text", "_lock", "_seen", "last")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._last_text: str | None = None
        self.last: Any = None
        """The arguments last seen quick (a copy made from their fingerprint), for the loop's first test
        (:func:`.invoke.same_json`); None when none are known. Read-only outside."""

    def add(self, text: str) -> None:
        """Remember the fingerprint ``text`` of a quick call's arguments (the most recent)."""
        with self._lock:
            self._seen[text] = None
            self._seen.move_to_end(text)
            if len(self._seen) > MAX_REMEMBERED:
                self._seen.popitem(last=False)
            self._seen_last(text)

    def holds(self, arguments: Any) -> bool:
        """Whether ``arguments`` were answered quickly before (their fingerprint is remembered): they are
        then the most recently seen."""
        text = fingerprint(arguments)
        if text is None:
            return False
        with self._lock:
            if text not in self._seen:
                return False
            self._seen.move_to_end(text)
            self._seen_last(text)
        return True

    def clear(self) -> None:
        """Forget every argument (the function was slow: it qualifies again from the start)."""
        with self._lock:
            self._seen.clear()
            self._last_text = self.last = None

    def _seen_last(self, text: str) -> None:
        if text != self._last_text:
            self._last_text, self.last = text, json.loads(text)  # a copy no caller holds: never changed
