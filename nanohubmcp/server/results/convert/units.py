"""pint Quantities as data: the magnitude as numbers, the units as text.

A Quantity (a number or an array with units, pint's ``ureg.Quantity`` / ``3 * ureg.meV``) becomes
``{"magnitude": ..., "units": "meV"}``, at the top of a result or anywhere inside a list or dict:

- ``magnitude``: a number as it is, a numpy array as nested lists (the array path's element forms:
  NaN -> ``null``, complex -> ``[real, imag]``, ...); an exact number (a ``Decimal``, as a
  ``UnitRegistry(non_int_type=Decimal)`` makes, or a ``Fraction``), alone or an array's element, as its text
  (``"0.0015"``, ``"3/2"``), as it is returned alone or in a table cell (:func:`.kinds.is_exact`);
- ``units``: pint's short spelling, which pint reads back (``ureg.Quantity(m, units)``): ``"meV"``,
  ``"m / s ** 2"``, ``"°C"``; ``"dimensionless"`` for a Quantity without units.

A Quantity returned alone also gets a summary text for the model (the value with its units, or the
array's shape, range and first values and its units) before the JSON text of that object.

pint's own rich forms are not used: its LaTeX form of an array has no numbers in it
(``$\\begin{pmatrix} & \\end{pmatrix}\\ \\mathrm{meV}$``). pint is never imported here: a Quantity is
recognised by its type's module and class names (``pint``, ``PlainQuantity`` or ``Quantity``).
"""

from __future__ import annotations

from typing import Any

from . import arrays
from .kinds import Nested, is_a, is_exact, library

__all__ = ["data", "is_quantity", "least_text", "summary", "units_text"]

QUANTITY_CLASSES = ("PlainQuantity", "Quantity")
"""The class names a pint Quantity's type has among its bases (``PlainQuantity`` from pint 0.20)."""


def is_quantity(value: object) -> bool:
    """True for a pint Quantity (scalar or array magnitude); False for a unit, a registry, anything else."""
    return library(value) == "pint" and is_a(value, "pint", *QUANTITY_CLASSES) and hasattr(value, "magnitude")


def units_text(value: Any) -> str:
    """The Quantity's units as pint's short text (``"meV"``), ``"dimensionless"`` when it has none."""
    units = value.units
    try:
        text = format(units, "~D")  # the default spelling, whatever the registry's default format
    except (ValueError, KeyError):  # an older pint without the "D" spec
        text = format(units, "~")
    return text or "dimensionless"


def _long_name(value: Any) -> str:
    """The units spelled out (``"millielectron_volt"``), when that differs from the short text."""
    text = str(value.units)
    return "" if text in ("", units_text(value)) else f" ({text})"


def data(value: Any, nested: Nested) -> dict[str, Any]:
    """``{"magnitude": numbers, "units": text}`` for a Quantity (``nested`` makes a plain magnitude JSON-ready;
    a ``Decimal`` or ``Fraction`` magnitude is its text, as is each one in an array)."""
    magnitude = value.magnitude
    if arrays.is_array(magnitude):
        numbers = arrays.to_lists(magnitude, nested)
    elif arrays.is_scalar(magnitude):
        numbers = arrays.scalar(magnitude, nested)
    elif is_exact(magnitude):
        numbers = str(magnitude)
    else:
        numbers = nested(magnitude)
    return {"magnitude": numbers, "units": units_text(value)}


def summary(value: Any, nested: Nested) -> str:
    """A short text for the model: ``"0.0258 eV"``, or an array's shape, range and first values with its units."""
    magnitude = value.magnitude
    units = units_text(value)
    if arrays.is_array(magnitude):
        return f"pint Quantity in {units}{_long_name(value)}: {arrays.summary(magnitude, nested)}"
    return f"{magnitude} {units}" if units != "dimensionless" else f"{magnitude} (dimensionless)"


def least_text(value: Any) -> int:
    """A lower bound of the length of the JSON text of :func:`data` (its array's, when the magnitude is one)."""
    magnitude = value.magnitude
    return arrays.least_text(magnitude) if arrays.is_array(magnitude) else 0
