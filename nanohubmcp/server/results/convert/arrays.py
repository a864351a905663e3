"""numpy scalars and arrays as JSON values (lists nested as deep as the array).

Element forms: floats as numbers, NaN/±Inf as ``null``; complex as ``[real, imag]``; ``datetime64`` as
ISO 8601 text (NaT as ``null``); ``timedelta64`` as seconds; bytes as Latin-1 text; structured
(record) arrays as one object per element, keyed by field name; masked elements as ``null``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from ....protocol import jsonenc
from .kinds import Nested, library

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

PREVIEW_ITEMS = 6


def is_scalar(value: object) -> TypeGuard[np.generic]:
    """A numpy scalar (``np.float64(1.5)``, ``np.bool_(True)``...)."""
    return library(value) == "numpy" and getattr(value, "shape", None) == () and hasattr(value, "item")


def is_array(value: object) -> TypeGuard[NDArray[Any]]:
    """A numpy ``ndarray`` (or subclass, e.g. a masked array)."""
    return library(value) == "numpy" and hasattr(value, "tolist") and hasattr(value, "ndim") and hasattr(value, "dtype")


def scalar(value: np.generic, nested: Nested) -> Any:
    """A numpy scalar as a JSON-ready Python value (a NaN stays a float: JSON writes it as null)."""
    if value.dtype.kind in "biuf":
        return value.item()
    return _cells(value.reshape(1) if hasattr(value, "reshape") else value, nested)[0]


def _cells(values: object, nested: Nested) -> Any:
    """``values.tolist()`` with every element JSON-ready (numpy is imported: ``values`` is an array)."""
    import numpy as np

    a = np.asanyarray(values)
    if isinstance(a, np.ma.MaskedArray):
        if np.ma.getmaskarray(a).any():
            out = np.ma.getdata(a).astype(object)
            out[np.ma.getmaskarray(a)] = None
            return nested(out.tolist())  # NaN left in is written as null by the JSON encoder
        a = np.ma.getdata(a)
    kind = a.dtype.kind
    if kind == "f":
        finite = np.isfinite(a)
        if finite.all():
            return a.tolist()
        out = a.astype(object)
        out[~finite] = None
        return out.tolist()
    if kind == "c":
        return _cells(np.stack([a.real, a.imag], axis=-1), nested)
    if kind == "M":
        text = np.datetime_as_string(a).astype(object)
        text[np.isnat(a)] = None
        return text.tolist()
    if kind == "m":
        seconds = a / np.timedelta64(1, "s")
        return _cells(seconds, nested)
    if kind == "S":
        return np.char.decode(a, "latin-1").tolist()
    if kind == "V" and a.dtype.names:
        names = a.dtype.names
        fields = [_cells(a[name], nested) for name in names]
        return _zip_records(names, fields, a.ndim)
    if kind == "O":
        return nested(a.tolist())
    return a.tolist()


def _zip_records(names: tuple[str, ...], fields: list[Any], ndim: int) -> Any:
    if ndim == 0:
        return dict(zip(names, fields, strict=True))
    if ndim == 1:
        return [dict(zip(names, row, strict=True)) for row in zip(*fields, strict=True)]
    return [_zip_records(names, list(parts), ndim - 1) for parts in zip(*fields, strict=True)]


def to_lists(a: object, nested: Nested) -> Any:
    """The array as nested lists of JSON-ready values (a 0-d array as its one value)."""
    return _cells(a, nested)


def to_text(a: NDArray[Any], nested: Nested) -> str:
    """The JSON text of :func:`to_lists` (``jsonenc.dumps``'s, to the byte), without making the
    lists when the accelerator can write the numbers."""
    tokens = _numbers_tokens(a)
    return ",".join(tokens) if tokens is not None else jsonenc.dumps(_cells(a, nested))


def cell_texts(a: NDArray[Any], nested: Nested) -> list[str]:
    """The JSON text of each element of a 1-d array of booleans, integers or real numbers."""
    if not a.size:
        return []
    tokens = _numbers_tokens(a)
    if tokens is None:
        return jsonenc.dumps(_cells(a, nested))[1:-1].split(",")  # numbers, true, false, null: no comma
    tokens[0] = tokens[0][1:]  # the brackets of a 1-d array (one token when it has one element)
    tokens[-1] = tokens[-1][:-1]
    return tokens


# Python writes a float with an exponent below 1e-4 (1e-05) where orjson writes 0.00001 or 1e-5;
# every other float (and every integer and boolean) is spelled the same by both (checked on millions
# of values across all exponents; tests/science holds the cases). Those few are written by Python.
SMALLEST_SAME = 1e-4


def _numbers_tokens(a: NDArray[Any]) -> list[str] | None:
    """orjson's text of a plain boolean, integer or real array with Python's spelling, split at its
    commas (one token per element, with the brackets around it), or None (no accelerator, or an
    array it does not write: masked, complex, objects, empty...)."""
    import numpy as np

    orjson = jsonenc.accelerator()
    kind = a.dtype.kind
    if orjson is None or type(a) is not np.ndarray or not a.ndim or not a.size or kind not in "biuf":
        return None
    if kind == "f":
        a = a.astype(np.float64, copy=False)  # as tolist() reads it: float16/32 values as doubles
    try:
        text: str = orjson.dumps(np.ascontiguousarray(a), option=orjson.OPT_SERIALIZE_NUMPY).decode()
    except orjson.JSONEncodeError:  # e.g. a byte order it does not read
        return None
    tokens = text.split(",")
    if kind != "f":
        return tokens
    flat = a.ravel()
    with np.errstate(invalid="ignore"):
        small = np.flatnonzero((flat != 0) & (np.abs(flat) < SMALLEST_SAME))
    for index in small.tolist():
        token = tokens[index]
        number = token.strip("[]")
        start = len(token) - len(token.lstrip("["))
        tokens[index] = token[:start] + float.__repr__(float(flat[index])) + token[start + len(number) :]
    return tokens


def summary(a: NDArray[Any], nested: Nested) -> str:
    """One short paragraph for the model: shape, dtype, range and the first values."""
    import numpy as np

    parts = [f"numpy array, shape {tuple(a.shape)}, dtype {a.dtype}, {a.size} value{'s' * (a.size != 1)}"]
    if a.size and a.dtype.kind in "biuf":
        data = np.ma.getdata(a)
        finite = data[np.isfinite(data)] if a.dtype.kind == "f" else data
        if finite.size:
            parts.append(f"min {finite.min()!s}, max {finite.max()!s}, mean {finite.mean():.6g}")
        if finite.size != a.size:
            parts.append(f"{a.size - finite.size} not finite (null in JSON)")
    flat = np.ravel(a)[:PREVIEW_ITEMS]
    first = jsonenc.dumps(_cells(flat, nested))
    more = " ..." if a.size > PREVIEW_ITEMS else ""
    parts.append(f"first values (flattened): {first}{more}")
    return "; ".join(parts)
