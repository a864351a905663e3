"""Numbers with units, read through pint (the implementation is shared with the tool programs'
``Rappture.Units``, see :mod:`.compat`)."""

from __future__ import annotations

from .compat.Rappture.Units import (
    UnitError,
    UnitsUnavailable,
    fitting_units,
    load_registry,
    registry_ready,
    split_number,
    to_units,
)
from .compat.Rappture.Units import number_in as convert

__all__ = ["UnitError", "UnitsUnavailable", "convert", "fitting_units", "load_registry", "pint_missing",
           "registry_ready", "split_number", "to_units"]


def pint_missing() -> bool:
    """True when pint cannot be imported (found without importing it: that takes a while)."""
    import importlib.util

    return importlib.util.find_spec("pint") is None
