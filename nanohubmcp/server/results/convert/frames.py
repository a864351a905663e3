"""pandas ``DataFrame``, ``Series`` and ``Index`` as records (one JSON object per row), a pandas array
(``Categorical``, ``SparseArray``, …) as an ``Index`` is: the list of its values.

The index comes first, as pandas' ``reset_index()`` names it (``"index"`` when unnamed, the level names of a
MultiIndex), then the columns in their order. A ``Series`` becomes index + one column named after the Series
(``"value"`` when unnamed). Column names are text (a MultiIndex column ``("a", "b")`` is ``"a|b"``, ``("T",
"")`` — a pivot table's index — ``"T"``); two columns with the same name are refused. Cells: NaN/NA/NaT ->
``null``, ``Timestamp``/``datetime``/``date`` -> ISO 8601, ``Timedelta`` -> seconds, categoricals -> their
values, complex -> ``[real, imag]``, other objects (``Period``, ``Interval``, ``Decimal``, ``Fraction``) ->
text.

pint Quantities in a column (object cells, as pandas holds them without pint-pandas): when every cell that is not
empty is a Quantity and all have the same units (and no uncertainty), the column holds their magnitudes and its name
gets the units (``"gap"`` -> ``"gap [eV]"``; a name already ending so is kept), in the records, the summary and the
CSV file alike; any other Quantity cell is its text (``"1.12 eV"``, as the Quantity's summary), and so are a column's
when its name with the units is already another column's or the index's (no two columns get one name). A pint
``Unit`` cell is its short text (``"meV"``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from ....protocol import jsonenc
from . import arrays, units
from .kinds import Nested, is_a, library, number_form

if TYPE_CHECKING:
    import pandas as pd

TABLE_ROWS = 20
TABLE_COLUMNS = 12

FIRST_CHUNK_ROWS = 1000


class Table(NamedTuple):
    """A DataFrame, Series or Index ready to become a result.

    Attributes:
        summary: readable text (the first rows as pandas prints them).
        records: makes the JSON-ready records (values for an Index).
        text: makes their JSON text, to the byte what ``jsonenc.dumps(records())`` writes, column
            by column without making the records.
        file: makes ``(CSV text, MIME type, file name)`` of the whole table.
        longer_than: ``longer_than(n)``: :func:`longer_than` of the table, from the frame its records are made
            of (its Quantity columns made plain once, for both); False for an Index's or an array's values.
    """

    summary: str
    records: Callable[[], Any]
    text: Callable[[], str]
    file: Callable[[], tuple[str, str, str]]
    longer_than: Callable[[int], bool]


def _frame(value: object) -> TypeGuard[pd.DataFrame]:
    return is_a(value, "pandas", "DataFrame")


def _series(value: object) -> TypeGuard[pd.Series]:
    return is_a(value, "pandas", "Series")


def _index(value: object) -> TypeGuard[pd.Index]:
    return is_a(value, "pandas", "Index")


def to_records(value: object, nested: Nested) -> Table | None:
    """The :class:`Table` of a DataFrame/Series/Index or a pandas array (``ExtensionArray``), else None.

    The records and text makers raise ``TypeError`` for duplicate column names (records need one
    key per column) or a cell with no JSON form.
    """
    if _frame(value):
        return _frame_table(_units_in_columns(value, nested), nested)
    if _series(value):
        return _series_table(value, nested)
    if _index(value):
        return _values(value, value.to_series(index=None), value.to_frame(index=False), "index.csv", nested)
    if _array(value):
        import pandas as pd  # (a pandas array is in hand: pandas is imported)

        series = pd.Series(value, copy=False)
        return _values(value, series, series.to_frame(name="value"), "array.csv", nested)
    return None


def _frame_table(frame: pd.DataFrame, nested: Nested) -> Table:
    text = frame.to_string(max_rows=TABLE_ROWS, max_cols=TABLE_COLUMNS)
    head = f"pandas DataFrame, {frame.shape[0]} rows x {frame.shape[1]} columns"
    return _table(f"{head}:\n{text}", frame, nested, "table.csv")


def _series_table(series: pd.Series, nested: Nested) -> Table:
    frame = series.to_frame(name=series.name if series.name is not None else "value")
    plain = _units_in_columns(frame, nested)
    if plain is not frame:  # a column of Quantities: its magnitudes, named with its units
        frame, series = plain, plain.iloc[:, 0]
    text = series.to_string(max_rows=TABLE_ROWS)
    named = f" {series.name!r}" if series.name is not None else ""
    head = f"pandas Series{named}, {len(series)} rows, dtype {series.dtype}"
    return _table(f"{head}:\n{text}", frame, nested, "series.csv")


def _table(summary: str, frame: pd.DataFrame, nested: Nested, file_name: str) -> Table:
    """``frame`` as a :class:`Table` with the ``summary`` text: its records, their text, its CSV as ``file_name``."""
    return Table(
        summary,
        lambda: _records(frame, nested),
        lambda: records_text(frame, nested),
        lambda: (frame.to_csv(), "text/csv", file_name),
        lambda limit: _records_longer_than(frame, nested, limit),
    )


def _array(value: object) -> TypeGuard[pd.api.extensions.ExtensionArray]:
    """A pandas array: ``Categorical``, ``SparseArray``, ``IntegerArray``, ``DatetimeArray``, …"""
    return is_a(value, "pandas", "ExtensionArray")


def _values(
    value: pd.Index | pd.api.extensions.ExtensionArray,
    series: pd.Series,
    frame: pd.DataFrame,
    name: str,
    nested: Nested,
) -> Table:
    """The :class:`Table` of an Index or a pandas array: its values in order (a column of the CSV file)."""
    values = column(series, nested)
    preview = ", ".join(str(v) for v in value[: TABLE_ROWS // 2])
    more = ", ..." if len(value) > TABLE_ROWS // 2 else ""
    head = f"pandas {type(value).__name__}, {len(value)} values, dtype {value.dtype}: [{preview}{more}]"
    return Table(
        head,
        lambda: values,
        lambda: jsonenc.dumps(values),
        lambda: (frame.to_csv(index=False), "text/csv", name),
        lambda _limit: False,
    )


def least_text(value: object) -> int:
    """A lower bound of the length of the records' JSON text of a DataFrame/Series (each row an
    object with a key per column and a value of at least one character; the index columns left
    out), found from the shape alone; 0 for anything else."""
    if _series(value):
        names: list[object] = [value.name if value.name is not None else "value"]
    elif _frame(value):
        names = list(value.columns)
    else:
        return 0
    row = 1 + sum(len(_name(name)) + 5 for name in names)  # {, "key":v and a comma or }, per column
    return len(value) * (row + 1) + 1  # a comma or bracket per row, and the closing bracket


def longer_than(value: object, nested: Nested, limit: int) -> bool:
    """True when the JSON text of ``{"result": records}`` of a DataFrame/Series is longer than
    ``limit`` characters, found by encoding the rows in growing chunks and stopping as soon as the
    count passes ``limit`` (a large table that is kept as a CSV file is never turned into records
    whole). False for anything else.

    Raises:
        TypeError: as the records maker, for the rows it encodes.
    """
    if _series(value):
        frame = value.to_frame(name=value.name if value.name is not None else "value")
    elif _frame(value):
        frame = value
    else:
        return False
    return _records_longer_than(_units_in_columns(frame, nested), nested, limit)


def _records_longer_than(frame: pd.DataFrame, nested: Nested, limit: int) -> bool:
    """:func:`longer_than` of a frame whose Quantity columns are already plain."""
    size, start, step = len('{"result":[]}'), 0, FIRST_CHUNK_ROWS
    while start < len(frame) and size <= limit:
        chunk = records_text(frame.iloc[start : start + step], nested)
        size += len(chunk) - 2 + (1 if start else 0)  # its records, and the comma before them
        start, step = start + step, step * 2
    return size > limit


def _name(label: object) -> str:
    """A record key: a MultiIndex column's levels joined by ``|`` (``("gap", "Si")`` -> ``"gap|Si"``), the empty
    levels at its end left out (``("T", "")``, a pivot table's index as ``reset_index()`` names it, -> ``"T"``)."""
    if isinstance(label, tuple):
        parts = [str(part) for part in label]
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return "|".join(parts)
    return str(label)


def _units_in_columns(frame: pd.DataFrame, nested: Nested) -> pd.DataFrame:
    """The frame with its columns of pint Quantities and Units made plain (see the module's text): ``frame`` itself
    when no object column holds one (a column of text is passed over at C speed), else a copy, its columns named as
    the records' keys are (``"gap [eV]"``; a MultiIndex column's levels joined)."""
    changed: dict[int, list[Any]] = {}
    for i in range(frame.shape[1]):
        series = frame.iloc[:, i]
        if library(series.dtype) != "numpy" or series.dtype.kind != "O" or _only_text(series):
            continue
        cells = series.tolist()
        if any(units.is_quantity(v) or units.is_unit(v) for v in cells):
            changed[i] = cells
    if not changed:
        return frame
    out = frame.copy(deep=False)
    labels = [_name(label) for label in frame.columns]
    taken = {*labels, *(_name(n) for n in frame.index.names if n is not None)}
    for i, cells in changed.items():
        suffix, values = _quantity_column(cells, nested)
        if suffix and not labels[i].endswith(suffix):  # ("gap [eV]" of Quantities in eV keeps its name)
            if labels[i] + suffix in taken:  # a column (or the index) has that name: these keep their units
                values = _texts(cells, nested)
            else:
                labels[i] += suffix
        out.isetitem(i, values)  # (by position: no label, so two columns of one name are still told apart)
    out.columns = labels
    return out


def _quantity_column(cells: list[Any], nested: Nested) -> tuple[str, list[Any]]:
    """``(" [units]", magnitudes)`` for a column's cells that are Quantities of one unit (empty cells kept
    empty), else ``("", texts)``: :func:`_texts`."""
    filled = [v for v in cells if not _missing(v)]
    if all(units.is_quantity(v) and not units.has_uncertainty(v) for v in filled):
        spelled = {units.units_text(v) for v in filled}
        if len(spelled) == 1:
            return f" [{spelled.pop()}]", [None if _missing(v) else v.magnitude for v in cells]
    return "", _texts(cells, nested)


def _texts(cells: list[Any], nested: Nested) -> list[Any]:
    """A column's cells with each Quantity as its text (``"1.12 eV"``) and each Unit as its short text (``"meV"``)."""
    return [units.summary(v, nested) if units.is_quantity(v) else units.unit_text(v) if units.is_unit(v) else v
            for v in cells]


def _flat(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The frame with its index as the first column(s), and the column names as record keys."""
    try:
        flat = frame.reset_index()
    except ValueError as exc:  # an index level named like a column
        raise TypeError(f"cannot turn the DataFrame into records: {exc}; rename the index or the column") from exc
    names = [_name(c) for c in flat.columns]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise TypeError(
            f"the DataFrame has more than one column named {', '.join(map(repr, twice))}; "
            "rename them so that each row can be a JSON object"
        )
    return flat, names


def _records(frame: pd.DataFrame, nested: Nested) -> list[dict[str, Any]]:
    flat, names = _flat(frame)
    columns = [column(flat.iloc[:, i], nested) for i in range(flat.shape[1])]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def records_text(frame: pd.DataFrame, nested: Nested) -> str:
    """The JSON text of the frame's records, as ``jsonenc.dumps`` writes them (same bytes), made
    column by column, :data:`JOIN_ROWS` rows at a time: each cell written once, then the cells and the
    (shared) key texts joined in row order, and the rows' texts joined. (Its escaped form, for the
    result's text block, is made from the joined text: ``protocol.escaped_text.wrapped``.)"""
    flat, names = _flat(frame)
    rows = len(flat)
    if not rows:
        return "[]"
    width = 2 * len(names)  # per row: key, cell, key, cell, ...
    keys = [("},{" if i == 0 else ",") + jsonenc.dumps(name) + ":" for i, name in enumerate(names)]
    cells = [_cells_of(flat.iloc[:, i], nested) for i in range(len(names))]
    texts = []
    for start in range(0, rows, JOIN_ROWS):
        stop = min(start + JOIN_ROWS, rows)
        pieces = [""] * ((stop - start) * width)
        for i, key in enumerate(keys):
            pieces[2 * i :: width] = [key] * (stop - start)
            pieces[2 * i + 1 :: width] = cells[i](start, stop)
        if not start:
            pieces[0] = "[{" + keys[0][3:]  # the first row opens the list
        texts.append("".join(pieces))
    texts.append("}]")
    return "".join(texts)


JOIN_ROWS = 4096
"""Rows whose cells are made and joined at a time by :func:`records_text`: their pieces (a string per cell)
stay in the processor's caches and in memory already the process's, where a whole table's (3 million pieces,
90 MB of small strings for 300,000 rows of 5 columns) were fresh memory each call, touched twice (CPU time
1.6x ``df.to_json`` for the records' text alone -> 1.1x, page faults 35,000 -> 3,300)."""


def _cells_of(series: pd.Series, nested: Nested) -> Callable[[int, int], list[str]]:
    """``cells(start, stop)``: the JSON text of one column's cells ``start:stop`` (numbers and text written
    for those rows only; other cells written at once, then sliced)."""
    if library(series.dtype) == "numpy" and series.dtype.kind in "biuf":
        values = series.to_numpy()
        return lambda start, stop: arrays.cell_texts(values[start:stop], nested)
    if series.dtype.kind == "O" and _only_text(series):  # cell() keeps text as it is
        strings = series.tolist()
        return lambda start, stop: jsonenc.string_texts(strings[start:stop])
    written = jsonenc.texts(column(series, nested))
    return lambda start, stop: written[start:stop]


def _only_text(series: pd.Series) -> bool:
    """Every cell is a ``str`` (pandas answers from a string dtype, or scans an object column in C)."""
    import pandas as pd

    return not series.hasnans and pd.api.types.infer_dtype(series, skipna=False) == "string"


def column(series: pd.Series, nested: Nested) -> list[Any]:
    """One column's values, JSON-ready."""
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    numpy_dtype = library(dtype) == "numpy"
    if numpy_dtype and kind in "biufc":
        return arrays.to_lists(series.to_numpy(), nested)
    if kind == "M":
        return [None if _missing(v) else v.isoformat() for v in series.tolist()]
    return [cell(v, nested) for v in series.tolist()]


def _missing(value: object) -> bool:
    return (
        value is None or type(value).__name__ in ("NAType", "NaTType") or (isinstance(value, float) and value != value)
    )


def cell(value: object, nested: Nested) -> Any:
    """One cell (or a pandas scalar) as a JSON-ready value."""
    if _missing(value):
        return None
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):  # pandas Timestamp is a datetime
        return value.isoformat()
    if isinstance(value, dt.timedelta):  # pandas Timedelta is a timedelta
        return value.total_seconds()
    special, form = number_form(value)  # a complex -> [real, imag], a Decimal or Fraction -> its text
    if special:
        return form
    if library(value) == "numpy" and arrays.is_scalar(value):
        return arrays.scalar(value, nested)
    if isinstance(value, bytes):
        return value.decode("latin-1")  # as in arrays: one character per byte
    if isinstance(value, (list, tuple, dict)) or library(value) == "numpy":  # an array in a cell: nested lists
        return nested(value)
    if library(value) == "pandas":  # a Period, an Interval
        return str(value)
    if units.is_quantity(value):  # (an Index's; a column's are made plain first: _units_in_columns)
        return units.summary(value, nested)
    if units.is_unit(value):
        return units.unit_text(value)
    raise TypeError(
        f"a table cell holds a {type(value).__module__}.{type(value).__qualname__} ({value!r:.60}), which has no "
        "JSON form; store str, numbers, booleans, None, lists or dicts in object columns"
    )
