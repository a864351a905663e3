"""A record written out as a tuple: what ``typing.NamedTuple`` gives, made by hand at a fifth of its start-up cost.

A record class subclasses :class:`TupleRecord` and ``tuple[...]`` of its field types, names its fields in
``_fields``, makes itself in ``__new__`` with ``tuple.__new__(cls, (a, b, ...))`` and reads each field with a
property. It compares, hashes, unpacks and indexes as a tuple; it copies and pickles (``copy.copy``,
``copy.deepcopy``, ``pickle``: made again from its fields by its own ``__new__``) and shows its fields in its repr.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TupleRecord"]


class TupleRecord(tuple[Any, ...]):
    """The base of a record written out as a tuple (see the module text)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    """The fields' names, in order."""

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)  # (tuple's own passes the whole tuple as one argument: its __new__ takes the fields)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True))
        return f"{type(self).__name__}({fields})"
