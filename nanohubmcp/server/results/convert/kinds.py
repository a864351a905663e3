"""Recognise a library's types without importing the library."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Nested = Callable[[Any], Any]
"""Makes a value found inside an object array or a table cell (a list, a dict, any object) JSON-ready.

The package's :func:`~nanohubmcp.server.results.convert.jsonable`, handed to the converters of arrays and
tables by their caller, so that they need not import the package that imports them.
"""


def library(value: object) -> str:
    """The top-level package ``value``'s type comes from (``"numpy"``, ``"pandas"``, ``"builtins"``...)."""
    return type(value).__module__.partition(".")[0]


def is_a(value: object, package: str, *names: str) -> bool:
    """True when ``value``'s type, or a base class of it, is ``package``'s class with one of ``names``."""
    return any(c.__name__ in names and c.__module__.partition(".")[0] == package for c in type(value).__mro__)
