"""Numbers with units, read through pint (the implementation is shared with the tool programs'
``Rappture.Units``, see :mod:`.compat`)."""

from __future__ import annotations

from ...server.wire.late_imports import late_imports
from .compat.Rappture import Units
from .compat.Rappture.Units import (
    UnitError,
    UnitsUnavailable,
    fitting_units,
    registry_ready,
    split_number,
    to_units,
)
from .compat.Rappture.Units import number_in as convert

__all__ = ["UnitError", "UnitsUnavailable", "convert", "fitting_units", "load_registry", "pint_missing",
           "registry_ready", "split_number", "to_units"]


def load_registry() -> None:
    """Make pint's registry now, or wait for the thread making it (``Rappture.Units.load_registry``: about a second,
    once per process; never on an event loop; never raises). A late import of a served path (pint and the registry:
    ~50k objects, :mod:`...server.wire.late_imports`): a served process freezes them once made."""
    with late_imports():
        Units.load_registry()


def pint_missing() -> bool:
    """True when pint cannot be imported (found without importing it: that takes a while)."""
    import importlib.util

    return importlib.util.find_spec("pint") is None
