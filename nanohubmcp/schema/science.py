"""numpy and pandas annotations: the schema a client sees and the conversion on arrival.

======================  ==========================================  ===============================
annotation              schema                                      the function receives
======================  ==========================================  ===============================
``np.ndarray``          array of numbers, or of such arrays         ``numpy.asarray(value)``; with
(``npt.NDArray[...]``)  (nested to any depth; ``null`` allowed)     a ``null`` inside, a float array
                                                                    with NaN there
``pd.DataFrame``        array of records (objects, one per row)     ``DataFrame.from_records``
``pd.Series``           array of values                             ``Series(value)``
======================  ==========================================  ===============================

The classes are recognised by their module and name; numpy and pandas are already imported when
a function's annotation names them, so nothing is imported here to check.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from nanohubmcp.protocol.message_values import one_line
from nanohubmcp.schema.coerce import Coercer, Path, fail

ARRAY_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": ["number", "array", "null"]},
    "description": "an array of numbers (nested arrays for more dimensions)",
}
FRAME_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "object"},
    "description": "a table: one object per row, column name to value",
}
SERIES_SCHEMA: dict[str, Any] = {"type": "array", "description": "the values of a series, in order"}
SHAPE_TEXTS = frozenset(schema["description"] for schema in (ARRAY_SCHEMA, FRAME_SCHEMA, SERIES_SCHEMA))
"""The descriptions these schemas bring: a parameter's docstring text goes before them, not in their place."""


def _is(base: type, package: str, name: str) -> bool:
    return any(c.__name__ == name and c.__module__.partition(".")[0] == package for c in base.__mro__)


_NUMBERS = frozenset((int, float, type(None)))
"""What an array's JSON holds at its innermost level (a JSON ``true`` arrives as ``bool``, not in it)."""


def _check_numbers(value: list[Any], path: Path) -> None:
    """Raise unless every item, at every depth, is a number, ``null`` or an array of them.

    The schema's ``items`` says so for the first level only (a client's validator and ours stop there);
    ``numpy.asarray`` would make a string array of ``[["1", "2"]]`` and an integer one of ``[[1, true]]``.
    Each level's item types are gathered by ``map(type, ...)``, so a row costs one C-level pass.
    """
    kinds = set(map(type, value))
    if kinds <= _NUMBERS:
        return
    if kinds <= _NUMBERS | {list}:  # deeper levels (a row beside a number is ragged: asarray says so)
        for index, item in enumerate(value):
            if type(item) is list:
                _check_numbers(item, (*path, index))
        return
    index, item = next((i, v) for i, v in enumerate(value) if type(v) not in _NUMBERS and type(v) is not list)
    shown = one_line(json.dumps(item, ensure_ascii=False, default=repr))[:40]  # as the client wrote it
    raise fail((*path, index), f"{shown} is not a number (an array parameter takes numbers, null for NaN, "
                               "or arrays of them, at every depth)")


def _to_array(value: object, path: Path) -> Any:
    numpy = sys.modules["numpy"]
    if type(value) is list:
        _check_numbers(value, path)
    try:
        array = numpy.asarray(value)
        if array.dtype == object:  # a null somewhere: NaN in a float array
            array = numpy.array(value, dtype=float)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged; an integer beyond a float's range
        raise fail(path, f"is not a rectangular array of numbers ({exc})") from None
    return array


def _to_frame(value: object, path: Path) -> Any:
    pandas = sys.modules["pandas"]
    try:
        return pandas.DataFrame.from_records(value)
    except (ValueError, TypeError) as exc:
        raise fail(path, f"is not a table of records ({exc})") from None


def _to_series(value: object, path: Path) -> Any:
    return sys.modules["pandas"].Series(value)


def scientific(base: type) -> tuple[dict[str, Any], Coercer] | None:
    """``(schema, coercer)`` for ``numpy.ndarray``, ``pandas.DataFrame`` and ``pandas.Series``; else None."""
    if _is(base, "numpy", "ndarray"):
        return dict(ARRAY_SCHEMA), _to_array
    if _is(base, "pandas", "DataFrame"):
        return dict(FRAME_SCHEMA), _to_frame
    if _is(base, "pandas", "Series"):
        return dict(SERIES_SCHEMA), _to_series
    return None
