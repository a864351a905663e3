"""What a record class declares: a dataclass, a ``NamedTuple`` or a ``TypedDict`` (:func:`is_record`), its
constructor's fields with their defaults (:func:`record_fields`) and the docstring its author wrote
(:func:`written_doc`), for :class:`~.mapping.TypeMapper`, which maps each to an object schema. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from nanohubmcp.schema.fragments import NOT_JSON

__all__ = ["is_namedtuple", "is_record", "record_fields", "written_doc"]


def is_record(cls: Any) -> bool:
    """Whether ``cls`` is a record class the schema maps to an object: a ``TypedDict``, a dataclass or a
    ``NamedTuple``."""
    return typing.is_typeddict(cls) or dataclasses.is_dataclass(cls) or is_namedtuple(cls)


def is_namedtuple(cls: Any) -> bool:
    """Whether ``cls`` is a ``NamedTuple`` class (``collections.namedtuple``'s too)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def written_doc(cls: type) -> str | None:
    """``cls.__doc__`` when a person wrote it; None when ``dataclass``/``NamedTuple`` did (``Point(x, y)``)."""
    doc = cls.__doc__ or ""
    return None if doc.startswith(f"{cls.__name__}(") else cls.__doc__


def record_fields(cls: type, hints: dict[str, Any]) -> list[tuple[str, bool, Any, str | None]]:
    """``(name, has_default, default, description-from-metadata)`` per constructor field of the record class
    ``cls`` (:func:`is_record`), whose resolved annotations are ``hints``; a default JSON cannot carry (a
    ``default_factory``'s, a TypedDict key's) is :data:`~.fragments.NOT_JSON`."""
    if dataclasses.is_dataclass(cls):
        out = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            note = f.metadata.get("description") if f.metadata else None
            if f.default is not dataclasses.MISSING:
                out.append((f.name, True, f.default, note))
            elif f.default_factory is not dataclasses.MISSING:
                out.append((f.name, True, NOT_JSON, note))
            else:
                out.append((f.name, False, None, note))
        return out
    if is_namedtuple(cls):
        defaults = getattr(cls, "_field_defaults", {})
        return [(n, n in defaults, defaults.get(n), None) for n in cls._fields]  # type: ignore[attr-defined]
    required = set(getattr(cls, "__required_keys__", ()))
    for name, hint in hints.items():
        # String annotations hide Required/NotRequired from the class machinery (3.10, 3.11):
        # the resolved hint says what the author wrote.
        marker = getattr(typing.get_origin(hint), "_name", None)
        if marker == "Required":
            required.add(name)
        elif marker == "NotRequired":
            required.discard(name)
    return [(n, n not in required, NOT_JSON, None) for n in hints]
