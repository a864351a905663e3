"""A returned value read plainly, before it is shaped into tool or resource content.

Pure functions over any value, shared by :mod:`.shape` (tools) and :mod:`.resources`: no I/O, no
library imported to recognise a type.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = ["has_str", "is_bytes", "plain"]


def plain(value: object) -> Any:
    """Unwrap enum members and dataclasses; read Mappings as dicts and tuples as lists."""
    if isinstance(value, enum.Enum):
        value = value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def is_bytes(value: object) -> TypeGuard[bytes | bytearray | memoryview]:
    """True for ``bytes``, ``bytearray`` and ``memoryview``."""
    return isinstance(value, (bytes, bytearray, memoryview))


def has_str(value: object) -> bool:
    """True when the value's type defines its own ``__str__`` (datetime, Path, Decimal...)."""
    return type(value).__str__ is not object.__str__
