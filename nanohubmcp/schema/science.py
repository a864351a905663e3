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

import sys
from typing import Any

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


def _is(base: type, package: str, name: str) -> bool:
    return any(c.__name__ == name and c.__module__.partition(".")[0] == package for c in base.__mro__)


def _to_array(value: object, path: Path) -> Any:
    numpy = sys.modules["numpy"]
    try:
        array = numpy.asarray(value)
        if array.dtype == object:  # a null somewhere: NaN in a float array
            array = numpy.array(value, dtype=float)
    except (ValueError, TypeError) as exc:
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
