"""A value as strict JSON text, with an error that names the part JSON cannot hold.

numpy and pandas values inside lists and dicts are converted (``convert.jsonable``) before a
value is refused; NaN and ±Infinity become ``null`` (``protocol.jsonenc``).
"""

from __future__ import annotations

from typing import Any

from ...protocol import jsonenc
from . import convert


def first_bad(value: object, path: str, seen: set[int]) -> tuple[str, Any] | None:
    """Return ``(json path, offending value)`` of the first thing JSON cannot hold, or None."""
    if value is None or isinstance(value, (str, int, float)):
        return None
    if isinstance(value, (dict, list, tuple)):
        if id(value) in seen:
            return path, "a circular reference"
        seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            if key is not None and not isinstance(key, (str, int, float)):
                return f"a key of {path}", key
            found = first_bad(item, f"{path}[{key!r}]", seen)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = first_bad(item, f"{path}[{index}]", seen)
            if found:
                return found
        return None
    return path, value


def to_json(value: object, what: str) -> tuple[str, Any]:
    """Return ``(strict JSON text, the value as JSON reads it back)``.

    Raises:
        TypeError: naming the first part of ``value`` that JSON cannot hold.
    """
    text = json_text(value, what)
    return text, jsonenc.loads(text)


def json_text(value: object, what: str) -> str:
    """Return the strict JSON text of ``value`` (what :func:`to_json` gives first, without reading it back).

    Raises:
        TypeError: naming the first part of ``value`` that JSON cannot hold.
    """
    try:
        text = jsonenc.dumps(value)
    except TypeError:
        # numpy/pandas values inside lists and dicts: convert them, then try once more.
        value = convert.jsonable(value)
        try:
            text = jsonenc.dumps(value)
        except (TypeError, ValueError, RecursionError) as exc:
            raise not_json(value, what) from exc
    except (ValueError, RecursionError) as exc:
        raise not_json(value, what) from exc
    return text


def not_json(value: object, what: str) -> TypeError:
    """The error naming the first part of ``value`` that JSON cannot hold.

    (A RecursionError comes from jsonenc's NaN-scrubbing retry on a circular structure.)
    """
    where, bad = first_bad(value, "$", set()) or ("$", value)
    kind = bad if isinstance(bad, str) and bad == "a circular reference" else f"a {type(bad).__name__}"
    return TypeError(
        f"{what} is not JSON-serialisable: {where} is {kind}; use dicts, lists, str, "
        "numbers, booleans and None (or return a ToolResult)"
    )
