"""Recognise a library's types without importing the library."""

from __future__ import annotations

from typing import Any


def library(value: Any) -> str:
    """The top-level package ``value``'s type comes from (``"numpy"``, ``"pandas"``, ``"builtins"``...)."""
    return type(value).__module__.partition(".")[0]


def is_a(value: Any, package: str, *names: str) -> bool:
    """True when ``value``'s type, or a base class of it, is ``package``'s class with one of ``names``."""
    return any(c.__name__ in names and c.__module__.partition(".")[0] == package for c in type(value).__mro__)
