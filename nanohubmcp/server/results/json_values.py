"""A value as strict JSON text, with an error that names the part JSON cannot hold.

numpy and pandas values inside lists and dicts are converted (``convert.jsonable``) before a
value is refused; NaN and ±Infinity become ``null`` (``protocol.jsonenc``); an int of more than 4,300 digits
is refused whatever Python's own limit is set to (``protocol.long_ints``). A value nested more
than :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` (128) levels deep is refused too, as a
client's JSON is: its text is looked at once written (no walk of its own), and nothing here
recurses past that depth.
"""

from __future__ import annotations

from typing import Any, Final

from ...protocol import jsondec, jsonenc, long_ints, nesting
from ...protocol.nesting import MAX_JSON_DEPTH, NestedTooDeep
from . import convert

_SHORT: Final = 2 * MAX_JSON_DEPTH
"""JSON text this long at most cannot nest more than :data:`MAX_JSON_DEPTH` levels (``[]`` is two characters)."""

TOO_DEEP: Final = "nested too deep"
"""What :func:`first_bad` names at a container past :data:`MAX_JSON_DEPTH` levels (not looked into)."""


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
    when that is a dict or list past :data:`MAX_JSON_DEPTH` levels)."""
    where, bad = first_bad(value, "$", set()) or ("$", value)
    if isinstance(bad, str) and bad == TOO_DEEP:  # (first_bad's own words: a value there is never a str)
        return nesting.too_deep(what)
    if isinstance(bad, int):  # (first_bad names an int only when it is too long)
        return TypeError(f"{what} is not JSON-serialisable: {long_ints.unwritten(where)}")
    kind = bad if isinstance(bad, str) and bad == "a circular reference" else f"a {type(bad).__name__}"
    return TypeError(
        f"{what} is not JSON-serialisable: {where} is {kind}; use dicts, lists, str, "
        "numbers, booleans and None (or return a ToolResult)"
    )
