"""Coercers: turn JSON values that passed validation into the Python values a parameter expects.

A coercer is ``coerce(value, path) -> value``; ``path`` (keys and indexes, outermost first)
only serves error messages. Coercers run after JSON Schema validation, so they may assume
the value already has the right JSON shape; when a constructor still refuses it (a
dataclass ``__post_init__`` check, bad base64, an impossible date) they raise
:class:`~nanohubmcp.errors.InvalidArguments` with one ``"<path>: <reason>"`` line.
This module knows no schemas (see ``mapping``).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.protocol.message_values import show
from nanohubmcp.schema.paths import format_path

Path = tuple[str | int, ...]
Coercer = Callable[[Any, Path], Any]


def fail(path: Path, reason: str) -> InvalidArguments:
    """The error a coercer raises; the path is rooted at ``arguments``."""
    line = f"{format_path('arguments', path)}: {reason}"
    return InvalidArguments(line, [line])


def to_int(value: object, path: Path) -> Any:
    """JSON ``5.0`` is an integer (JSON Schema § 6.1.1); Python code wants ``5``."""
    return int(value) if isinstance(value, float) else value


def to_float(value: object, path: Path) -> Any:
    """A ``float`` parameter gets a float even when the JSON number was written ``2``."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


SHORTCUTS: dict[Coercer, tuple[type, Callable[[Any], Any], type]] = {
    to_float: (int, float, float),
    to_int: (float, int, int),
}
"""Coercers whose whole work is a builtin's for values of exact types, as ``(source, builtin,
target)``: a ``source`` value becomes ``builtin(value)``, a ``target`` value is kept, any other
goes through the coercer (``Signature.coerce`` compiles this per parameter)."""


def from_base64(kind: type) -> Coercer:
    def coerce(value: str, path: Path) -> Any:
        try:
            return kind(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError) as exc:
            raise fail(path, f"not valid base64 ({exc})") from None

    return coerce


def from_isoformat(kind: type[dt.date] | type[dt.time]) -> Coercer:
    """``datetime`` / ``date`` / ``time`` from ISO 8601 text (a trailing ``Z`` accepted on 3.10)."""

    def coerce(value: str, path: Path) -> Any:
        text = value[:-1] + "+00:00" if kind is not dt.date and value.endswith(("Z", "z")) else value
        try:
            return kind.fromisoformat(text)
        except ValueError as exc:
            raise fail(path, f"{show(value)} is not a valid {kind.__name__} ({exc})") from None

    return coerce


def by_call(kind: Callable[[Any], Any], what: str) -> Coercer:
    """``kind(value)``: Enum members by value, UUID, Path, …; failures name ``what``."""

    def coerce(value: object, path: Path) -> Any:
        try:
            return kind(value)
        except (ValueError, TypeError, KeyError) as exc:
            raise fail(path, f"{show(value)} is not a valid {what} ({exc})") from None

    return coerce


def by_lookup(table: Mapping[Any, Any]) -> Coercer:
    """Map JSON literals back to the Python objects they stand for (Enum members)."""

    def coerce(value: object, path: Path) -> Any:
        # bool and int compare equal in Python; key on the type as well.
        return table.get((type(value), value), value)

    return coerce


def each(item: Coercer, into: Callable[[Any], Any] = list) -> Coercer:
    """Coerce every array item, then build ``into`` (list, tuple, set, frozenset)."""

    def coerce(value: list[object], path: Path) -> Any:
        return into(item(v, (*path, i)) for i, v in enumerate(value))

    return coerce


def into(kind: Callable[[Any], Any]) -> Coercer:
    """Build ``kind`` from the array as is (``tuple``, ``set`` without item coercion)."""
    return lambda value, path: kind(value)


def positional(items: Sequence[Coercer | None], rest: Coercer | None) -> Coercer:
    """A tuple with per-position coercers (``tuple[int, Color]``)."""

    def coerce(value: list[object], path: Path) -> Any:
        out = []
        for i, v in enumerate(value):
            c = items[i] if i < len(items) else rest
            out.append(c(v, (*path, i)) if c is not None else v)
        return tuple(out)

    return coerce


def mapping(key: Coercer | None, value: Coercer | None) -> Coercer:
    """Coerce the keys and/or values of a JSON object into a dict."""

    def coerce(obj: dict[str, object], path: Path) -> Any:
        return {
            (key(k, (*path, k)) if key is not None else k): (value(v, (*path, k)) if value is not None else v)
            for k, v in obj.items()
        }

    return coerce


def fields(coercers: Mapping[str, Coercer], build: Callable[..., Any] | None) -> Coercer:
    """Coerce named members of an object, then call ``build(**members)`` (dataclass, NamedTuple).

    With ``build=None`` the result stays a dict (TypedDict).
    """

    def coerce(obj: dict[str, object], path: Path) -> Any:
        members = dict(obj)
        for name, c in coercers.items():
            if name in members and members[name] is not None:
                members[name] = c(members[name], (*path, name))
        if build is None:
            return members
        try:
            return build(**members)
        except (TypeError, ValueError) as exc:
            raise fail(path, str(exc) or type(exc).__name__) from None

    return coerce


def optional(inner: Coercer) -> Coercer:
    """``X | None``: ``None`` stays ``None``, anything else goes through ``inner``."""
    return lambda value, path: None if value is None else inner(value, path)


def first_match(members: Sequence[tuple[Callable[[Any], bool], Coercer | None]]) -> Coercer:
    """A union: coerce with the first member whose schema accepts the value."""

    def coerce(value: object, path: Path) -> Any:
        for accepts, c in members:
            if accepts(value):
                return c(value, path) if c is not None else value
        return value

    return coerce
