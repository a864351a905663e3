"""A record written out as a tuple: what ``typing.NamedTuple`` gives, made by hand at a fifth of its start-up cost.

A record class subclasses :class:`TupleRecord` and ``tuple[...]`` of its field types, names its fields in
``_fields``, makes itself in ``__new__`` with ``tuple.__new__(cls, (a, b, ...))`` and reads each field with a
property. It compares, hashes, unpacks and indexes as a tuple; it copies and pickles (``copy.copy``,
``copy.deepcopy``, ``pickle``: made again from its fields by its own ``__new__``) and shows its fields in its repr.

A record made on every message (the connection seam's :class:`~nanohubmcp.server.intake.Incoming` and
:class:`~nanohubmcp.server.connection.Reply`) subclasses :class:`TupleMadeRecord` instead: it has no
``__new__`` of its own, so it is made by tuple's constructor from a tuple of its fields (``Reply((message,
session))``: the type checker checks that tuple against the record's ``tuple[...]``), and reads its fields
with :func:`field`. Neither runs Python code: no frame, nothing of this package entered (bench/hops.md).
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["TupleMadeRecord", "TupleRecord", "field"]


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


class TupleMadeRecord(TupleRecord):
    """The base of a record made by tuple's own constructor from one tuple of its fields (see the module
    text): copied and pickled the same way (tuple's ``__getnewargs__``: the fields as one tuple)."""

    __slots__ = ()

    def __getnewargs__(self) -> tuple[Any, ...]:
        return (tuple(self),)  # tuple's own: the fields as one argument, as its constructor takes them


def field(index: int) -> Any:
    """A record's field ``index`` as a read-only attribute, read in C (``property(operator.itemgetter(index))``):
    declare it ``name: Final[T] = field(i)``, the type checker reads it as a ``T``."""
    return property(operator.itemgetter(index))
