"""pint Quantities as data: the magnitude as numbers, the units as text.

A Quantity (a number or an array with units, pint's ``ureg.Quantity`` / ``3 * ureg.meV``) becomes
``{"magnitude": ..., "units": "meV"}``, at the top of a result or anywhere inside a list or dict:

- ``magnitude``: a number as it is, a numpy array as nested lists (the array path's element forms:
  NaN -> ``null``, complex -> ``[real, imag]``, ...), a numpy scalar or 0-d array as its one number; a ``complex``
  as ``[real, imag]`` and an exact number (a ``Decimal``, as a ``UnitRegistry(non_int_type=Decimal)`` makes, or a
  ``Fraction``) as its text (``"0.0015"``, ``"3/2"``), alone or an array's element, as it is returned alone or in a
  table cell (:func:`.kinds.number_form`);
- ``uncertainty``: only for a magnitude with an uncertainty (a pint ``Measurement``, ``q.plus_minus(0.01)``, or a
  Quantity of an ``uncertainties`` value, ``ufloat(1.12, 0.01) * ureg.eV``): the standard deviation, the magnitude
  then being the nominal value: ``{"magnitude": 1.12, "uncertainty": 0.01, "units": "eV"}``; for an array of them
  (``unumpy.uarray(nominals, std_devs) * ureg.eV``) both are arrays of its shape, as ``unumpy.nominal_values`` and
  ``unumpy.std_devs`` give them;
- ``units``: pint's short spelling, which pint reads back (``ureg.Quantity(m, units)``): ``"meV"``,
  ``"m / s ** 2"``, ``"°C"``; ``"dimensionless"`` for a Quantity without units.

A Quantity returned alone also gets a summary text for the model (the value with its units, ``1.12 eV`` or
``(1.12 +/- 0.01) eV``, or the array's shape, range and first values and its units) before the JSON text of that
object. A pint ``Unit`` alone (``q.units``) is its short text (``"meV"``), as ``units`` is.

pint's own rich forms are not used: its LaTeX form of an array has no numbers in it
(``$\\begin{pmatrix} & \\end{pmatrix}\\ \\mathrm{meV}$``). Neither pint nor ``uncertainties`` is imported here: a
Quantity is recognised by its type's module and class names (``pint``, ``PlainQuantity`` or ``Quantity``), a unit
likewise (``PlainUnit`` or ``Unit``), a value with an uncertainty by ``uncertainties``' ``AffineScalarFunc`` (the
base of its ``Variable``).
"""

from __future__ import annotations

from typing import Any

from . import arrays
from .kinds import Nested, is_a, library, number_form

__all__ = [
    "data", "has_uncertainty", "is_quantity", "is_unit", "least_text", "summary", "uncertain_parts", "unit_text",
    "units_text",
]

QUANTITY_CLASSES = ("PlainQuantity", "Quantity")
"""The class names a pint Quantity's type has among its bases (``PlainQuantity`` from pint 0.20)."""
UNIT_CLASSES = ("PlainUnit", "Unit")
"""The class names a pint Unit's type has among its bases."""
UNCERTAIN_CLASSES = ("AffineScalarFunc", "UFloat")
"""The class names of a number with an uncertainty, from the ``uncertainties`` package (what pint's
``Measurement`` holds; ``Variable``, ``ufloat()``'s type, is an ``AffineScalarFunc``)."""


def is_quantity(value: object) -> bool:
    """True for a pint Quantity (scalar or array magnitude); False for a unit, a registry, anything else."""
    return library(value) == "pint" and is_a(value, "pint", *QUANTITY_CLASSES) and hasattr(value, "magnitude")


def is_unit(value: object) -> bool:
    """True for a pint Unit (``ureg.meV``, ``q.units``); False for a Quantity, a registry, anything else."""
    return library(value) == "pint" and is_a(value, "pint", *UNIT_CLASSES) and not hasattr(value, "magnitude")


def unit_text(units: Any) -> str:
    """A pint Unit as pint's short text (``"meV"``, ``"m / s ** 2"``), ``"dimensionless"`` when it has none.

    Never its LaTeX (``$\\mathrm{millielectron\\_volt}$``), what the display protocol would send for it."""
    try:
        text = format(units, "~D")  # the default spelling, whatever the registry's default format
    except (ValueError, KeyError):  # an older pint without the "D" spec
        text = format(units, "~")
    return text or "dimensionless"


def units_text(value: Any) -> str:
    """The Quantity's units as pint's short text (``"meV"``), ``"dimensionless"`` when it has none."""
    return unit_text(value.units)


def has_uncertainty(value: Any) -> bool:
    """True for a Quantity whose magnitude carries an uncertainty (a pint ``Measurement``, a Quantity of an
    ``uncertainties`` value or of an array of them, ``unumpy.uarray``)."""
    return uncertain_parts(value.magnitude) is not None


def _uncertain(number: object) -> bool:
    return is_a(number, "uncertainties", *UNCERTAIN_CLASSES) and hasattr(number, "std_dev")


def uncertain_parts(magnitude: Any) -> tuple[Any, Any] | None:
    """``(nominal values, standard deviations)`` of a magnitude with uncertainties: a scalar's two numbers, or,
    for an object array holding ``uncertainties`` values (``unumpy.uarray``), two float arrays of its shape (a
    plain number in it is itself with an uncertainty of 0, as ``unumpy.std_devs`` has it; a NaN is NaN in both);
    None for any other magnitude (an array of anything else beside them too)."""
    if _uncertain(magnitude):
        return magnitude.nominal_value, magnitude.std_dev
    if not arrays.is_array(magnitude) or magnitude.dtype.kind != "O" or not magnitude.size:
        return None
    cells = magnitude.ravel().tolist()
    if not any(_uncertain(v) for v in cells):
        return None
    if not all(_uncertain(v) or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in cells):
        return None
    import numpy as np  # (an array is in hand: numpy is imported)

    pairs = [(v.nominal_value, v.std_dev) if _uncertain(v) else (v, 0.0 if v == v else v) for v in cells]
    nominal, std = (np.array(part, dtype=float).reshape(magnitude.shape) for part in zip(*pairs, strict=True))
    return nominal, std


def _long_name(value: Any) -> str:
    """The units spelled out (``"millielectron_volt"``), when that differs from the short text."""
    text = str(value.units)
    return "" if text in ("", units_text(value)) else f" ({text})"


def _number(magnitude: Any, nested: Nested) -> Any:
    """A magnitude that is not an array as a JSON-ready value (a numpy scalar as its number, a ``complex`` as
    ``[real, imag]``, an exact number as its text)."""
    if arrays.is_scalar(magnitude):
        return arrays.scalar(magnitude, nested)
    special, form = number_form(magnitude)
    return form if special else nested(magnitude)


def _plain(magnitude: Any, nested: Nested) -> Any:
    return arrays.to_lists(magnitude, nested) if arrays.is_array(magnitude) else _number(magnitude, nested)


def data(value: Any, nested: Nested) -> dict[str, Any]:
    """``{"magnitude": numbers, "units": text}`` for a Quantity (``nested`` makes a plain magnitude JSON-ready;
    a ``Decimal`` or ``Fraction`` magnitude is its text and a ``complex`` one ``[real, imag]``, as is each one in
    an array); ``{"magnitude": nominal value(s), "uncertainty": standard deviation(s), "units": text}`` for one with
    uncertainties (:func:`uncertain_parts`: a number each, or two arrays of one shape)."""
    parts = uncertain_parts(value.magnitude)
    if parts is not None:
        return {"magnitude": _plain(parts[0], nested), "uncertainty": _plain(parts[1], nested),
                "units": units_text(value)}
    return {"magnitude": _plain(value.magnitude, nested), "units": units_text(value)}


def summary(value: Any, nested: Nested) -> str:
    """A short text for the model: ``"0.0258 eV"``, ``"(1.12 +/- 0.01) eV"``, or an array's shape, range and first
    values with its units (a 0-d array or a numpy scalar reads as the number it holds: ``"1.5 eV"``)."""
    magnitude = value.magnitude
    units = units_text(value)
    if arrays.is_array(magnitude):
        if magnitude.ndim:
            parts = uncertain_parts(magnitude)
            if parts is not None:
                return (f"pint Quantity in {units}{_long_name(value)} with uncertainties: nominal values "
                        f"{arrays.summary(parts[0], nested)}; uncertainties {arrays.summary(parts[1], nested)}")
            return f"pint Quantity in {units}{_long_name(value)}: {arrays.summary(magnitude, nested)}"
        magnitude = magnitude[()]  # a 0-d array: its one element, a numpy scalar
    if _uncertain(magnitude):
        magnitude = f"({magnitude.nominal_value} +/- {magnitude.std_dev})"
    return f"{magnitude} {units}" if units != "dimensionless" else f"{magnitude} (dimensionless)"


def least_text(value: Any) -> int:
    """A lower bound of the length of the JSON text of :func:`data` (its array's, when the magnitude is one)."""
    magnitude = value.magnitude
    return arrays.least_text(magnitude) if arrays.is_array(magnitude) else 0
