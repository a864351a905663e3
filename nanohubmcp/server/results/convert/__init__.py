"""Scientific return values (numpy, pandas, pint, matplotlib, PIL, the IPython display protocol) as MCP content.

A value is recognised by the module its type comes from (``type(x).__module__``) or by the display
protocol's methods, never by importing a library to check: converting plain values imports none of
numpy, pandas, pint, matplotlib, PIL or IPython. Each library has a module of its own here; this one picks.

What each becomes (the README's table is the user-facing copy):

=====================================  ===========================================================
value                                  result
=====================================  ===========================================================
numpy scalar                           the Python number / bool (``np.bool_`` -> ``true``)
numpy ``ndarray`` (any depth)          ``structuredContent {"result": nested lists}``; text: a summary
                                       (shape, dtype, range, a few values) and the JSON text
pandas ``DataFrame``                   ``{"result": [records]}``, the index as the first column(s)
pandas ``Series``                      ``{"result": [records]}``: index column(s) and the values
pandas ``Index``, pandas array         ``{"result": [values]}`` (``Categorical``, ``SparseArray``, …)
pint ``Quantity`` (scalar or array)    ``{"magnitude": number or nested lists, "units": "meV"}`` (with
                                       ``"uncertainty"`` for a ``Measurement``); text: the value with its
                                       units (an array's summary), then the JSON text
pint ``Unit``                          its short text (``"meV"``), as a ``str`` returned
matplotlib ``Figure``/``Axes``         a PNG ``image`` block (the figure's size and dpi); figure closed
PIL ``Image``                          a PNG ``image`` block
display protocol object                by the first MIME type offered, see ``display``
any of these inside a list/dict        converted in place (arrays -> lists, frames -> records, ...)
=====================================  ===========================================================

Cell values: NaN/±Inf/NA/NaT -> ``null``; datetimes -> ISO 8601 text; timedeltas -> seconds;
complex numbers -> ``[real, imag]``; categoricals -> their values.

The wire's encoder writes such a value met in a message (a middleware's, never a tool's: the handlers
convert those) as :func:`jsonable` makes it: :func:`write_values`, called when this module is imported
(whatever shapes a tool's result imports it); a server with a middleware has the encoder load this module
at the first such value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ....protocol import foreign_values, jsonenc
from ....protocol.content import is_content
from ....protocol.wire import UNSET
from . import arrays, display, frames, images, mixed, units
from .kinds import is_a, library

__all__ = [
    "Converted", "convert", "costly", "data_of", "jsonable", "library", "recognised", "resource_form", "scalar",
    "write_values",
]

SCIENCE_LIBRARIES = frozenset({"numpy", "pandas", "matplotlib", "PIL"})
PANDAS_SCALARS = ("Timestamp", "Timedelta", "NaTType", "NAType", "Period", "Interval")


@dataclass
class Converted:
    """A recognised value, ready to become a tool result.

    Attributes:
        summary: text for the model put before the data (shape, dtype, a readable table...).
        data: the JSON-ready data for ``structuredContent`` (wrapped as ``{"result": data}`` unless
            it is a dict); used only when ``has_data`` (a JSON ``null`` is data too).
        blocks: content blocks that are not data (images, embedded resources, plain text).
        full: when the data is too large to inline, ``full()`` gives ``(payload, MIME type,
            file name)`` of the resource that keeps all of it (CSV for frames, JSON otherwise).
        lazy: ``data`` is a function that makes the data (called only when it is inlined).
        text: when given, ``text(within)`` makes the JSON text of the data (to the byte what
            ``jsonenc.dumps`` writes for it) without making the data: the result then carries that one
            text as its text block and, as ``encoded.Encoded``, as ``structuredContent``'s ``result``
            (arrays and tables). ``within`` (None: no limit) lets it stop early, raising
            ``arrays.LongerThan``, once the text is known to be longer (arrays do).
        longer_than: when given, ``longer_than(n)`` says, without making all of the data, whether
            its JSON text is longer than ``n`` characters (then ``full`` is kept instead).
        at_least: a lower bound of the length of the data's JSON text, found without encoding it
            (0: unknown), so that data surely too large to send is refused before it is made.
        parts: when given, ``parts()`` makes the text of ``text`` in parts as they are read (arrays):
            data too large to inline is then written to the store a part at a time, never held whole.
    """

    summary: str | None = None
    data: Any = None
    has_data: bool = False
    blocks: list[dict[str, Any]] = field(default_factory=list)
    full: Callable[[], tuple[bytes | str, str, str]] | None = None
    lazy: bool = False
    longer_than: Callable[[int], bool] | None = None
    text: Callable[[int | None], str] | None = None
    at_least: int = 0
    parts: Callable[[], Iterator[str]] | None = None


def recognised(value: object) -> bool:
    """True when ``value`` is something this package converts (cheap; imports nothing)."""
    if type(value).__module__ == "builtins":
        return False
    return (library(value) in SCIENCE_LIBRARIES or units.is_quantity(value) or units.is_unit(value)
            or display.offers(value))


COSTLY_ITEMS = 256
"""The most items (counted over every nested list, tuple and dict) a value may hold for :func:`costly` to
call it cheap."""
COSTLY_TEXT = 64 * 1024
"""A text longer than this (characters) inside a value makes it costly (:func:`costly`)."""


def costly(value: object) -> bool:
    """Whether shaping ``value``, a list, tuple or dict, may hold up the thread that does it: at any depth it
    holds a picture or a content object (drawn or converted when shaped), a recognised value (an array, a
    table), a text over :data:`COSTLY_TEXT` characters, or more than :data:`COSTLY_ITEMS` items in all (the
    walk and the JSON text grow with them). Looks at :data:`COSTLY_ITEMS` items at most, so a small value
    costs a few checks; False for anything else (a str, a number, an object of another kind)."""
    if not isinstance(value, (list, tuple, dict)):
        return False
    left = COSTLY_ITEMS
    stack: list[Any] = [value]
    while stack:
        current = stack.pop()
        items = current.values() if isinstance(current, dict) else current
        left -= len(items)
        if left < 0:
            return True
        for item in items:
            kind = type(item)
            if kind in mixed.LEAF_TYPES:
                if kind is str and len(item) > COSTLY_TEXT:
                    return True
            elif isinstance(item, (list, tuple, dict)):
                stack.append(item)
            elif mixed.is_picture(item) or is_content(item) or recognised(item):
                return True
    return False


def scalar(value: object) -> tuple[bool, Any]:
    """``(True, plain value)`` for a numpy or pandas scalar (``np.float32``, ``Timestamp``, ``NA``) or a pint
    ``Unit`` (its short text, ``"meV"``: never its LaTeX), else ``(False, value)``: scalars then follow the rules
    of plain numbers, text and None."""
    if units.is_unit(value):
        return True, units.unit_text(value)
    lib = library(value)
    if lib == "numpy" and arrays.is_scalar(value):
        return True, arrays.scalar(value, jsonable)
    if lib == "pandas" and is_a(value, "pandas", *PANDAS_SCALARS):
        return True, frames.cell(value, jsonable)
    return False, value


def data_of(value: object) -> Any:
    """The structured content of an array or table (``{"result": ...}``), else ``UNSET``."""
    lib = library(value)
    if lib == "numpy" and arrays.is_array(value):
        return {"result": arrays.to_lists(value, jsonable)}
    if lib == "pandas":
        table = frames.to_records(value, jsonable)
        if table is not None:
            return {"result": table.records()}
    if units.is_quantity(value):
        return units.data(value, jsonable)
    return UNSET


def convert(value: object, *, figure_dpi: float | None = None) -> Converted | None:
    """Convert a recognised top-level value; None when it is none of ours.

    Raises:
        TypeError: a value of a recognised library with no MCP form (the message names the type and
            what to return instead).
    """
    lib = library(value)
    if lib == "numpy":
        if arrays.is_scalar(value):
            return Converted(data=arrays.scalar(value, jsonable), has_data=True)
        if arrays.is_array(value):
            array = value
            return Converted(  # kept as its JSON text when too large
                arrays.summary(array, jsonable),
                lambda: arrays.to_lists(array, jsonable),
                True,
                lazy=True,
                text=lambda within: arrays.to_text(array, jsonable, within),
                at_least=arrays.least_text(array),
                parts=lambda: arrays.text_parts(array, jsonable),
            )
    if lib == "pandas":
        table = frames.to_records(value, jsonable)
        if table is not None:
            return Converted(
                table.summary,
                table.records,
                True,
                full=table.file,
                lazy=True,
                longer_than=table.longer_than,
                text=lambda _within: table.text(),
                at_least=frames.least_text(value),
            )
    if units.is_quantity(value):  # before the display protocol: pint's LaTeX of an array has no numbers
        quantity = value
        return Converted(
            units.summary(quantity, jsonable), lambda: units.data(quantity, jsonable), True, lazy=True,
            at_least=units.least_text(quantity),
        )
    if lib in ("matplotlib", "PIL"):
        block = images.to_block(value, figure_dpi=figure_dpi)
        if block is not None:
            return Converted(blocks=[block])
    if display.offers(value):
        shaped = display.to_parts(value)
        if shaped is not None:
            blocks, data = shaped
            return Converted(data=data, has_data=data is not None, blocks=blocks)
    if lib in SCIENCE_LIBRARIES:
        raise TypeError(
            f"a tool returned a value of type {type(value).__module__}.{type(value).__name__}, which has no MCP "
            "form; return a numpy array, a pandas DataFrame/Series, a matplotlib Figure, a PIL Image, or plain "
            "str/number/dict/list values"
        )
    return None


def resource_form(value: object) -> tuple[str | bytes, str] | None:
    """What a resource function's array, table or picture reads as: ``(text or bytes, MIME type)``.

    Arrays are JSON text (nested lists), Quantities JSON text (``{"magnitude": ..., "units": ...}``), a pint
    ``Unit`` its short text (``text/plain``), frames/series/indexes CSV (index first), figures and images PNG;
    None for anything else.
    """
    if units.is_unit(value):
        return units.unit_text(value), "text/plain"
    lib = library(value)
    if lib == "numpy" and arrays.is_array(value):
        return jsonenc.dumps(arrays.to_lists(value, jsonable)), "application/json"
    if units.is_quantity(value):
        return jsonenc.dumps(units.data(value, jsonable)), "application/json"
    if lib == "pandas":
        table = frames.to_records(value, jsonable)
        if table is not None:
            text, mime, _ = table.file()
            return text, mime
    png = images.png_of(value) if lib in ("matplotlib", "PIL") else None
    return (png, "image/png") if png is not None else None


def jsonable(value: object, _depth: int = 0) -> Any:
    """``value`` with every numpy/pandas object and pint Quantity inside lists, tuples and dicts made JSON-ready, as
    :func:`convert` and :func:`scalar` make the same object returned alone (a pandas array as its values, a
    ``Period`` or ``Interval`` as its text, a ``longdouble`` as the nearest double).

    Other values, and a numpy or pandas object with no JSON form (a ufunc, a ``GroupBy``), are returned as
    they are (the JSON encoder then names what it cannot hold). Dataclasses have already been turned into
    dicts by the caller.
    """
    if _depth > 200:
        return value
    kind = type(value)
    if kind is dict:
        assert isinstance(value, dict)
        return {k: jsonable(v, _depth + 1) for k, v in value.items()}
    if kind in (list, tuple):
        assert isinstance(value, (list, tuple))
        return [jsonable(v, _depth + 1) for v in value]
    if kind.__module__ == "builtins":
        return value
    lib = library(value)
    if lib == "numpy":
        if arrays.is_scalar(value):
            return arrays.scalar(value, jsonable)
        if arrays.is_array(value):
            return arrays.to_lists(value, jsonable)
    if lib == "pandas":
        table = frames.to_records(value, jsonable)
        if table is not None:
            return table.records()
        if is_a(value, "pandas", *PANDAS_SCALARS):
            return frames.cell(value, jsonable)
    if units.is_quantity(value):
        return units.data(value, jsonable)
    if units.is_unit(value):
        return units.unit_text(value)
    return value  # (another library's object, a pandas GroupBy: the encoder names its type)


def write_values() -> None:
    """Have the wire's encoder write a numpy or pandas value it meets in a message as :func:`jsonable`
    makes it (:func:`~nanohubmcp.protocol.foreign_values.convert_values_with`): a record array as one object per
    element, a masked element as null, a complex number as ``[real, imag]``, a ``datetime64`` as ISO 8601
    text, as in a tool's result. Costs a message of JSON values nothing (the encoder asks only for what it
    cannot write)."""
    foreign_values.convert_values_with(jsonable)


write_values()
