"""numpy scalars and arrays as JSON values (lists nested as deep as the array).

Element forms: floats as numbers, NaN/±Inf as ``null`` (a ``longdouble`` as the nearest double: a JSON number is
one for its readers); complex as ``[real, imag]``; ``datetime64`` as ISO 8601 text (NaT as ``null``);
``timedelta64`` as seconds; bytes as Latin-1 text; structured (record) arrays as one object per element, keyed
by field name; masked elements (and ``np.ma.masked`` itself) as ``null``; an object array's ``Decimal`` or
``Fraction`` elements as their text (``"1.50"``, ``"3/2"``) and its ``complex`` ones as ``[real, imag]``
(:func:`.kinds.number_form`), its others as the ``nested`` converter makes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from ....protocol import jsonenc
from ....protocol.accelerator import accelerator
from .kinds import Nested, library, number_form

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
    """A numpy scalar as a JSON-ready Python value (a NaN stays a float: JSON writes it as null; a
    ``longdouble`` is the nearest double, ``np.ma.masked`` None)."""
    if value.dtype.kind in "biuf" and value.dtype.itemsize <= 8 and not hasattr(value, "mask"):
        return value.item()  # (a longdouble's item() is the longdouble itself, which JSON has no form for)
    return _cells(value.reshape(1) if hasattr(value, "reshape") else value, nested)[0]


def _cells(values: object, nested: Nested) -> Any:
    """``values.tolist()`` with every element JSON-ready (numpy is imported: ``values`` is an array)."""
    import numpy as np

    a = np.asanyarray(values)
    if isinstance(a, np.ma.MaskedArray):
        if np.ma.getmaskarray(a).any():
            out = np.ma.getdata(a).astype(object)
            out[np.ma.getmaskarray(a)] = None
            return _objects(out.tolist(), a.ndim, nested)  # NaN left in is written as null by the JSON encoder
        a = np.ma.getdata(a)
    kind = a.dtype.kind
    if kind == "f":
        if a.dtype.itemsize > 8:  # a longdouble: tolist() keeps numpy's own scalars
            with np.errstate(over="ignore"):  # (beyond a double's range: infinite, written as null)
                a = a.astype(np.float64)
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
        return _objects(a.tolist(), a.ndim, nested)
    return a.tolist()


def _objects(values: Any, ndim: int, nested: Nested) -> Any:
    """An object array's ``tolist()`` (``ndim`` levels of lists) with each element JSON-ready: a ``Decimal``
    or ``Fraction`` as its text and a ``complex`` as ``[real, imag]``, as in a table cell, any other as ``nested``
    makes it."""
    if ndim:
        return [_objects(value, ndim - 1, nested) for value in values]
    special, form = number_form(values)
    return form if special else nested(values)


def _zip_records(names: tuple[str, ...], fields: list[Any], ndim: int) -> Any:
    if ndim == 0:
        return dict(zip(names, fields, strict=True))
    if ndim == 1:
        return [dict(zip(names, row, strict=True)) for row in zip(*fields, strict=True)]
    return [_zip_records(names, list(parts), ndim - 1) for parts in zip(*fields, strict=True)]


def to_lists(a: object, nested: Nested) -> Any:
    """The array as nested lists of JSON-ready values (a 0-d array as its one value)."""
    return _cells(a, nested)


_LEAST_CELL = {"b": 4, "f": 3, "c": 9, "M": 4, "m": 3, "S": 2, "U": 2, "V": 2}
"""The shortest JSON text of one element, by dtype kind (``true``, ``0.0``, ``[0.0,0.0]``, ``null``,
``""``, ``{}``); 1 for the others (an integer's digit, an object's shortest value)."""


def least_text(a: NDArray[Any]) -> int:
    """A lower bound of the length of :func:`to_text`'s text, found from the shape and dtype alone
    (each element its kind's shortest spelling, a comma after all but the last, the outer brackets)."""
    size = int(a.size)
    if not size:
        return 2
    least = _LEAST_CELL.get(a.dtype.kind, 1)
    if getattr(a, "mask", None) is not None:  # a masked element is null
        least = min(least, 4)
    return size * (least + 1) - 1 + 2 * (a.ndim > 0)


CHUNK_CELLS = 1 << 16
"""Elements the accelerator writes at a time (:func:`to_text`)."""


class LongerThan(Exception):
    """:func:`to_text` stopped: the text is longer than it was allowed (``chars`` written so far)."""

    def __init__(self, chars: int) -> None:
        super().__init__(chars)
        self.chars = chars


def to_text(a: NDArray[Any], nested: Nested, within: int | None = None) -> str:
    """The JSON text of :func:`to_lists` (``jsonenc.dumps``'s, to the byte): :func:`text_parts` joined.

    ``within``: raise :class:`LongerThan` as soon as the parts written are longer than this many
    characters (a text too large to send is not written whole to find out)."""
    pieces = []
    length = 0
    for part in text_parts(a, nested):
        pieces.append(part)
        length += len(part)
        if within is not None and length > within:
            raise LongerThan(length)
    return "".join(pieces)


def text_parts(a: NDArray[Any], nested: Nested) -> Iterator[str]:
    """The JSON text of :func:`to_lists` in parts (their concatenation is the text), made as they are
    read: a text kept as a file is written a part at a time, never held whole.

    Each part is a chunk of rows of about :data:`CHUNK_CELLS` elements, written by the accelerator
    when it writes the numbers (without making the lists), else by ``jsonenc.dumps`` from the chunk's
    lists. Only a chunk holding a float Python spells otherwise is split into one string per element
    to respell it (ten million such strings took about 800 MB, several times the text itself)."""
    if not a.ndim or not a.size:
        yield jsonenc.dumps(_cells(a, nested))
        return
    rows = max(1, CHUNK_CELLS // max(1, a.size // a.shape[0]))
    for start in range(0, a.shape[0], rows):
        chunk = a[start : start + rows]
        written = _accelerated(chunk)
        if written is None:  # no accelerator, or a kind it does not write (complex, dates, objects...)
            text = jsonenc.dumps(_cells(chunk, nested))
        else:
            text, flat, small = written
            if small.size:
                text = ",".join(_respelled(text.split(","), flat, small))
        last = start + rows >= a.shape[0]
        yield ("," if start else "[") + text[1 : None if last else -1]  # the chunk's rows, and the brackets


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
    written = _accelerated(a)
    if written is None:
        return None
    text, flat, small = written
    return _respelled(text.split(","), flat, small)


def _accelerated(a: NDArray[Any]) -> tuple[str, NDArray[Any], NDArray[Any]] | None:
    """orjson's text of a plain boolean, integer or real array, the array flattened, and the indexes
    of its elements Python spells otherwise (:data:`SMALLEST_SAME`); None as :func:`_numbers_tokens`."""
    import numpy as np

    orjson = accelerator()
    kind = a.dtype.kind
    if orjson is None or type(a) is not np.ndarray or not a.ndim or not a.size or kind not in "biuf":
        return None
    if kind == "f":
        a = a.astype(np.float64, copy=False)  # as tolist() reads it: float16/32 values as doubles
    try:
        text: str = orjson.dumps(np.ascontiguousarray(a), option=orjson.OPT_SERIALIZE_NUMPY).decode()
    except orjson.JSONEncodeError:  # e.g. a byte order it does not read
        return None
    flat = a.ravel()
    if kind != "f":
        return text, flat, np.empty(0, dtype=np.intp)
    with np.errstate(invalid="ignore"):
        small = np.flatnonzero((flat != 0) & (np.abs(flat) < SMALLEST_SAME))
    return text, flat, small


def _respelled(tokens: list[str], flat: NDArray[Any], small: NDArray[Any]) -> list[str]:
    """``tokens`` (one per element, brackets included) with the elements at ``small`` in Python's spelling."""
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
        count, low, high, mean = _finite_range(np.atleast_1d(np.ma.getdata(a)))
        if count:
            parts.append(f"min {low!s}, max {high!s}, mean {mean:.6g}")
        if count != a.size:
            parts.append(f"{a.size - count} not finite (null in JSON)")
    lead = a[: -(-PREVIEW_ITEMS // max(1, a.size // a.shape[0]))] if a.ndim and a.shape[0] else a
    flat = np.ravel(lead)[:PREVIEW_ITEMS]  # (the first rows only: a strided array's ravel is a copy)
    first = jsonenc.dumps(_cells(flat, nested))
    more = " ..." if a.size > PREVIEW_ITEMS else ""
    parts.append(f"first values (flattened): {first}{more}")
    return "; ".join(parts)


def _finite_range(data: NDArray[Any]) -> tuple[int, Any, Any, Any]:
    """How many values of a boolean, integer or real array are finite, and their min, max and mean,
    read a chunk of rows at a time (what is made per chunk: a mask, the finite values when some
    are not), so that no temporary array as large as ``data`` (a mask is a byte per value) is made."""
    import numpy as np

    rows = max(1, CHUNK_CELLS * 16 // max(1, data.size // data.shape[0]))
    count, lows, highs, sums = 0, [], [], []
    for start in range(0, data.shape[0], rows):
        finite = data[start : start + rows]
        if data.dtype.kind == "f":
            kept = np.isfinite(finite)
            if not kept.all():
                finite = finite[kept]
            del kept
        if finite.size:
            count += finite.size
            lows.append(finite.min())
            highs.append(finite.max())
            sums.append(finite.mean() if rows >= data.shape[0] else finite.sum(dtype="float64"))
    if not count:
        return 0, None, None, None
    mean = sums[0] if rows >= data.shape[0] else sum(sums) / count  # one chunk: numpy's own mean, as ever
    return count, min(lows), max(highs), mean
