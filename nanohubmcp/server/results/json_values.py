"""A value as strict JSON text, with an error that names the part JSON cannot hold.

numpy and pandas values inside lists and dicts are converted (``convert.jsonable``) before a
value is refused; NaN and ±Infinity become ``null`` (``protocol.jsonenc``); an int of more than 4,300 digits
is refused whatever Python's own limit is set to (``protocol.long_ints``). A value nested more
than :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` (128) levels deep is refused too, as a
client's JSON is: its text is looked at once written (no walk of its own), and nothing here
recurses past that depth.

A value the package converts (a numpy array, a table, a pint Quantity) is written by its converter; a part of it
JSON cannot hold (an object array's ``set`` element) is refused by the same rule (:func:`refused_by_name`), named
where it sits in the value's JSON (``$[1]``: the array's element 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from ...protocol import jsondec, jsonenc, long_ints, nesting
from ...protocol.nesting import MAX_JSON_DEPTH, NestedTooDeep
from . import convert

_SHORT: Final = 2 * MAX_JSON_DEPTH
"""JSON text this long at most cannot nest more than :data:`MAX_JSON_DEPTH` levels (``[]`` is two characters)."""

TOO_DEEP: Final = "nested too deep"
"""What :func:`first_bad` names at a container past :data:`MAX_JSON_DEPTH` levels (not looked into)."""


class NotJSON(TypeError):
    """A function's value holds a part JSON cannot hold; the message names where and what (:func:`not_json`).

    The author's value is at fault, not the server's code: the call's failure is logged as one line, without a
    traceback (whose frames would be the server's)."""


def first_bad(value: object, path: str, seen: set[int], depth: int = 0) -> tuple[str, Any] | None:
    """Return ``(json path, offending value)`` of the first thing JSON cannot hold, or None.

    ``depth`` is the levels of dicts and lists around ``value``; a dict or list past
    :data:`MAX_JSON_DEPTH` levels is not looked into: its path and :data:`TOO_DEEP` are returned.
    """
    if value is None or isinstance(value, (str, float)):
        return None
    if isinstance(value, int):
        return (path, value) if long_ints.too_long(value) else None
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_JSON_DEPTH:
            return path, TOO_DEEP
        if id(value) in seen:
            return path, "a circular reference"
        seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            if key is not None and not isinstance(key, (str, int, float)):
                return f"a key of {path}", key
            found = first_bad(item, f"{path}[{key!r}]", seen, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = first_bad(item, f"{path}[{index}]", seen, depth + 1)
            if found:
                return found
        return None
    return path, value


def to_json(value: object, what: str) -> tuple[str, Any]:
    """Return ``(strict JSON text, the value as JSON reads it back)``.

    Raises:
        TypeError: naming the first part of ``value`` that JSON cannot hold.
        NestedTooDeep: as :func:`json_text`.
    """
    text = json_text(value, what)
    return text, jsondec.loads(text)


def json_text(value: object, what: str) -> str:
    """Return the strict JSON text of ``value`` (what :func:`to_json` gives first, without reading it back).

    Raises:
        TypeError: naming the first part of ``value`` that JSON cannot hold.
        NestedTooDeep: ``value`` nests dicts and lists more than :data:`MAX_JSON_DEPTH` levels
            deep (a ValueError; the message says the limit and what to do).
    """
    try:
        text = jsonenc.dumps(value)
    except TypeError:
        # numpy/pandas values inside lists and dicts: convert them, then try once more.
        value = convert.jsonable(value)
        try:
            text = jsonenc.dumps(value)
        except (TypeError, ValueError) as exc:
            raise not_json(value, what) from exc
    except ValueError as exc:  # a circular reference, or nested past what the encoder can write
        raise not_json(value, what) from exc
    return nesting.within_depth(text, what) if len(text) > _SHORT else text  # most results skip the look


def not_json(value: object, what: str) -> TypeError | NestedTooDeep:
    """The error naming the first part of ``value`` that JSON cannot hold (``nesting.too_deep``'s
    when that is a dict or list past :data:`MAX_JSON_DEPTH` levels): a :class:`NotJSON` otherwise."""
    return _refusal(first_bad(value, "$", set()) or ("$", value), what)


def _refusal(found: tuple[str, Any], what: str) -> NotJSON | NestedTooDeep:
    """:func:`not_json`'s error for ``(json path, offending value)``, as :func:`first_bad` returns it."""
    where, bad = found
    if isinstance(bad, str) and bad == TOO_DEEP:  # (first_bad's own words: a value there is never a str)
        return nesting.too_deep(what)
    if isinstance(bad, int):  # (first_bad names an int only when it is too long)
        return NotJSON(f"{what} is not JSON-serialisable: {long_ints.unwritten(where)}")
    kind = bad if isinstance(bad, str) and bad == "a circular reference" else f"a {type(bad).__name__}"
    return NotJSON(
        f"{what} is not JSON-serialisable: {where} is {kind}; use dicts, lists, str, "
        "numbers, booleans and None (or return a ToolResult)"
    )


@contextmanager
def refused_by_name(value: object, what: str) -> Iterator[None]:
    """Write a value the package converts (``value``: an array, a table, a Quantity; ``what`` names it) in the
    block: the encoder's bare ``TypeError`` for a part of it JSON cannot hold (an object array's ``set`` or
    arbitrary object, at any depth of an element) becomes :func:`not_json`'s :class:`NotJSON`, naming that part
    where it sits in the value's JSON (``$[1]``, ``$[0]['k']``; a Quantity's ``$['magnitude'][1]``) and what to
    return instead, as for the same value inside a dict. Any other ``TypeError`` (a value with no JSON form at
    all, whose own error names it) is raised as it is."""
    try:
        yield
    except NotJSON:
        raise
    except TypeError as exc:
        found = _found_in(value)
        if found is None:
            raise
        raise _refusal(found, what) from exc


def _found_in(value: object) -> tuple[str, Any] | None:
    """:func:`first_bad` of the JSON-ready form of a converted ``value`` (the lists, records or dict its
    converter writes); None when it has none (no converter made it) or its converter refuses it by its own
    words (a table cell holding a ``set``)."""
    try:
        data = convert.jsonable(value)
    except (TypeError, ValueError):
        return None
    return None if data is value else first_bad(data, "$", set())
