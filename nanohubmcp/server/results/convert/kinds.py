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


EXACT_NUMBERS = (("decimal", "Decimal"), ("fractions", "Fraction"))
"""The exact numbers (package, class name) written as their text wherever the results meet one."""


def is_exact(value: object) -> bool:
    """True for a ``Decimal`` or a ``Fraction`` (a subclass too), without importing either module.

    JSON has no form for them but a float, which would round them: the results write one as its text
    (``str(value)``: ``"1.50"``, ``"3/2"``), as such a value returned alone is, in a table cell and as a pint
    Quantity's magnitude.
    """
    return any(is_a(value, package, name) for package, name in EXACT_NUMBERS)


def number_form(value: object) -> tuple[bool, Any]:
    """``(True, its JSON form)`` for a number JSON has no number for, else ``(False, value)``: the one rule the
    results follow wherever they meet such a number (an object array's element, a table cell, a pint Quantity's
    magnitude).

    An exact number (:func:`is_exact`) is its text (``"1.50"``, ``"3/2"``); a ``complex`` (Python's, or numpy's
    ``complex128``, a subclass of it) is ``[real, imag]``, as each element of a numpy complex array is (a NaN part
    written as ``null``).

    Example:
        >>> from fractions import Fraction
        >>> number_form(1 + 2j), number_form(Fraction(3, 2)), number_form(1.5)
        ((True, [1.0, 2.0]), (True, '3/2'), (False, 1.5))
    """
    if isinstance(value, complex):
        return True, [float(value.real), float(value.imag)]
    if is_exact(value):
        return True, str(value)
    return False, value


def is_a(value: object, package: str, *names: str) -> bool:
    """True when ``value``'s type, or a base class of it, is ``package``'s class with one of ``names``."""
    return any(c.__name__ in names and c.__module__.partition(".")[0] == package for c in type(value).__mro__)
