"""Numbers with units, read through pint (the implementation is shared with the tool programs'
``Rappture.Units``, see :mod:`.compat`)."""

from __future__ import annotations

from .compat.Rappture.Units import UnitError, fitting_units, split_number, to_units
from .compat.Rappture.Units import number_in as convert

__all__ = ["UnitError", "convert", "fitting_units", "split_number", "to_units"]
