"""Python annotations -> JSON Schema 2020-12 fragments, each with its coercer.

:class:`TypeMapper` owns the table documented in
:func:`nanohubmcp.schema.generate.describe_function`. Every mapping returns a
:class:`Mapped`: the schema a client sees, and (when the Python value differs from the JSON
value) a coercer from ``coerce`` that rebuilds it. Unknown annotations map to ``{}`` (any
value) rather than failing: a tool that accepts anything is still usable.

Recursive dataclasses / TypedDicts / NamedTuples are emitted once under ``$defs`` and
referenced with ``$ref``; everything else is inlined, which clients handle best.
"""

from __future__ import annotations

import collections
import collections.abc as abc
import datetime as dt
import enum
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from nanohubmcp.schema import coerce as co
from nanohubmcp.schema.constraints import NotExpressible, check_range, keywords_of
from nanohubmcp.schema.default_check import default_breaks, published_member, withheld_default
from nanohubmcp.schema.docstrings import read_docstring
from nanohubmcp.schema.fragments import json_type, member_schema, nullable
from nanohubmcp.schema.hints import type_hints
from nanohubmcp.schema.model_defaults import model_schema
from nanohubmcp.schema.record_fields import is_record, record_fields, written_doc
from nanohubmcp.schema.science import scientific
from nanohubmcp.schema.secret import SchemaKeys

from ..protocol.tuple_records import TupleRecord

_WRAPPER_NAMES = {"Required", "NotRequired", "ReadOnly", "Final", "ClassVar"}
_UNION_ORIGINS = {typing.Union, types.UnionType}
_TYPING_TUPLE: Any = typing.Tuple  # noqa: UP006 - compared at run time: bare Tuple and Tuple[()] look alike
_ITERABLES = {abc.Iterable, abc.Collection, abc.Reversible}
_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NUMERIC_COERCERS = {int: co.to_int, float: co.to_float}
_FORMATTED: dict[type, tuple[str | None, Callable[[type], co.Coercer]]] = {
    # datetime before date: datetime is a subclass of date.
    dt.datetime: ("date-time", co.from_isoformat),
    dt.date: ("date", co.from_isoformat),
    # No "time" format: RFC 3339 full-time needs a UTC offset, which clock times like "12:30"
    # rarely carry (and jsonschema enforces it only when rfc3339-validator is installed).
    # The coercion (time.fromisoformat) still refuses a bad value with a clear message.
    dt.time: (None, co.from_isoformat),
}
_UUID_FORMAT: tuple[str, Callable[[type], co.Coercer]] = ("uuid", lambda kind: co.by_call(kind, "UUID"))


def _formatted(base: type) -> tuple[str | None, Callable[[type], co.Coercer]] | None:
    """The string ``format`` and coercer for date/time and UUID classes (and subclasses)."""
    for kind, found in _FORMATTED.items():
        if issubclass(base, kind):
            return found
    # uuid is not imported for this: an annotation can only name uuid.UUID once uuid is loaded.
    uuid = sys.modules.get("uuid")
    if uuid is not None and issubclass(base, uuid.UUID):
        return _UUID_FORMAT
    return None


def _is_path(base: type) -> bool:
    """A ``pathlib`` path class; pathlib is not imported for this (as uuid above: an annotation can
    only name a path class once pathlib is loaded, and a served script's start need not load it)."""
    pathlib = sys.modules.get("pathlib")
    return pathlib is not None and issubclass(base, pathlib.PurePath)


class Mapped(TupleRecord, tuple["dict[str, Any]", "co.Coercer | None"]):
    """A schema fragment and the coercer back to Python (``None``: the JSON value is used as is),
    ``(schema, coerce)``.

    A tuple written out, not a frozen dataclass nor a ``NamedTuple``: this module is on every server's start path,
    and a dataclass costs ~2-4 M instructions to create at import, a ``NamedTuple`` ~0.6 M (bench/startup.md).
    """

    __slots__ = ()
    _fields = ("schema", "coerce")

    def __new__(cls, schema: dict[str, Any], coerce: co.Coercer | None = None) -> Mapped:
        return tuple.__new__(cls, (schema, coerce))

    @property
    def schema(self) -> dict[str, Any]:
        return self[0]

    @property
    def coerce(self) -> co.Coercer | None:
        return self[1]


ANY = Mapped({})


class TypeMapper:
    """Maps annotations for one function; collects ``$defs`` for recursive types.

    Args:
        extra_names: fallback names for string annotations inside dataclasses etc.
    """

    def __init__(self, extra_names: Mapping[str, Any] | None = None) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self._extra = extra_names or {}
        self._active: set[Any] = set()
        self._recursive: dict[Any, str] = {}
        self._late: dict[Any, co.Coercer] = {}
        self._done: dict[Any, Mapped] = {}
        self.unpublished: list[tuple[str, str]] = []
        """``(field, why)`` for each record (or pydantic model) field whose default the schema leaves out (JSON has
        no form for it, or its own schema refuses it: ``default_check.withheld_default``), the field named
        ``Class.field``, in the order mapped; a record met again adds none."""

    # -- dispatch ---------------------------------------------------------------------
    def map(self, tp: object) -> Mapped:
        """Return the schema and coercer for annotation ``tp``."""
        if tp is Any or tp is object or isinstance(tp, (str, typing.ForwardRef)):
            return ANY
        if tp is None or tp is type(None):
            return Mapped({"type": "null"})
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self._annotated(args[0], args[1:])
        if origin is not None and getattr(origin, "_name", None) in _WRAPPER_NAMES:
            return self.map(args[0])
        if origin is typing.Literal:
            return _literal(args)
        if origin in _UNION_ORIGINS:
            return self._union(args)
        if isinstance(tp, typing.TypeVar):
            return self.map(tp.__bound__) if tp.__bound__ is not None else ANY
        supertype = getattr(tp, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.map(supertype)
        base = origin if origin is not None else tp
        if not isinstance(base, type):
            return ANY
        return self._class(tp, base, args)

    def _class(self, tp: object, base: type, args: tuple[Any, ...]) -> Mapped:
        if base in _SIMPLE:
            return Mapped({"type": _SIMPLE[base]}, _NUMERIC_COERCERS.get(base))
        if issubclass(base, enum.Enum):
            return _enum(base)
        if base in (bytes, bytearray):
            return Mapped({"type": "string", "contentEncoding": "base64"}, co.from_base64(base))
        formatted = _formatted(base)
        if formatted is not None:
            fmt, make = formatted
            return Mapped({"type": "string", "format": fmt} if fmt else {"type": "string"}, make(base))
        if _is_path(base):
            return Mapped({"type": "string"}, co.by_call(base, "path"))
        if is_record(base):
            return self._structured(base)
        if callable(getattr(base, "model_json_schema", None)) and callable(
            getattr(base, "model_validate", None)
        ):
            return self._pydantic(base)
        numeric = scientific(base)
        if numeric is not None:
            return Mapped(*numeric)
        if issubclass(base, (str, int, float)):  # other subclasses of str/int/float
            return self._class(tp, next(k for k in (bool, int, float, str) if issubclass(base, k)), args)
        if issubclass(base, tuple):
            return self._tuple(tp, args)
        if issubclass(base, abc.Set):
            return self._array(args, unique=True, into=frozenset if issubclass(base, frozenset) else set)
        if issubclass(base, abc.Mapping):
            return self._object(args)
        if issubclass(base, (abc.Sequence, collections.deque)) or base in _ITERABLES:
            return self._array(args, unique=False, into=list)
        return ANY

    # -- composites -------------------------------------------------------------------
    def _annotated(self, inner: object, metadata: tuple[Any, ...]) -> Mapped:
        mapped = self.map(inner)
        schema = dict(mapped.schema)
        texts = [item for item in metadata if isinstance(item, str)]
        # Objects carrying a .description (e.g. a pydantic Field) count as descriptions too.
        texts += [
            item.description for item in metadata if isinstance(getattr(item, "description", None), str)
        ]
        if texts:
            schema["description"] = texts[0]
        for item in metadata:
            if isinstance(item, (dict, SchemaKeys)):  # SchemaKeys: Secret's (hashable) marking
                schema.update(item)
            else:  # a pydantic Field's constraints, annotated_types' Gt/MinLen/...: their keywords, or refused
                schema.update(keywords_of(item, schema))
        check_range(schema)  # (bounds from two items, Gt(10) and Lt(5), too)
        return Mapped(schema, mapped.coerce)

    def _union(self, members: tuple[Any, ...]) -> Mapped:
        has_none = type(None) in members
        rest = [self.map(m) for m in members if m is not type(None)]
        if any(not m.schema for m in rest):
            return ANY
        if len(rest) == 1:
            only = rest[0]
            return Mapped(
                nullable(only.schema) if has_none else only.schema,
                co.optional(only.coerce) if has_none and only.coerce else only.coerce,
            )
        if all(m.schema.keys() == {"type"} and isinstance(m.schema["type"], str) for m in rest):
            kinds = list(dict.fromkeys(m.schema["type"] for m in rest))
            schema: dict[str, Any] = {"type": [*kinds, "null"] if has_none else kinds}
        else:
            schema = {"anyOf": [m.schema for m in rest] + ([{"type": "null"}] if has_none else [])}
        if not any(m.coerce for m in rest):
            return Mapped(schema)
        tests = [(self._acceptor(m.schema), m.coerce) for m in rest]
        return Mapped(schema, co.optional(co.first_match(tests)))

    def _acceptor(self, schema: dict[str, Any]) -> Callable[[Any], bool]:
        """A lazily compiled ``is_valid`` for one union member (``$defs`` are complete by then)."""
        compiled: list[Any] = []

        def accepts(value: object) -> bool:
            if not compiled:
                from nanohubmcp.schema.iri_grammar import load_jsonschema

                load_jsonschema()  # lazily, its RFC 3987 grammar deferred: importing it can cost seconds
                from jsonschema import Draft202012Validator

                from nanohubmcp.schema.keywords import validator_class

                root = {**schema, "$defs": self.defs} if self.defs else schema
                ours = validator_class(Draft202012Validator)  # the pattern/multipleOf every call's check reads
                compiled.append(ours(root, format_checker=Draft202012Validator.FORMAT_CHECKER))
            return bool(compiled[0].is_valid(value))

        return accepts

    def _array(self, args: tuple[Any, ...], *, unique: bool, into: Callable[[Any], Any]) -> Mapped:
        schema: dict[str, Any] = {"type": "array"}
        item = self.map(args[0]) if args else ANY
        if item.schema:
            schema["items"] = item.schema
        if unique:
            schema["uniqueItems"] = True
        if item.coerce is not None:
            return Mapped(schema, co.each(item.coerce, into))
        return Mapped(schema, None if into is list else co.into(into))

    def _tuple(self, tp: object, args: tuple[Any, ...]) -> Mapped:
        if tp is _TYPING_TUPLE or (not args and typing.get_origin(tp) is None):  # bare tuple
            return Mapped({"type": "array"}, co.into(tuple))
        if not args:  # tuple[()]
            return Mapped({"type": "array", "maxItems": 0}, co.into(tuple))
        if len(args) == 2 and args[1] is Ellipsis:
            item = self.map(args[0])
            schema: dict[str, Any] = {"type": "array"}
            if item.schema:
                schema["items"] = item.schema
            return Mapped(schema, co.each(item.coerce, tuple) if item.coerce else co.into(tuple))
        items = [self.map(a) for a in args]
        schema = {
            "type": "array",
            "prefixItems": [m.schema for m in items],
            "minItems": len(items),
            "maxItems": len(items),
        }
        coercers = [m.coerce for m in items]
        if any(coercers):
            return Mapped(schema, co.positional(coercers, None))
        return Mapped(schema, co.into(tuple))

    def _object(self, args: tuple[Any, ...]) -> Mapped:
        schema: dict[str, Any] = {"type": "object"}
        if not args:
            return Mapped(schema)
        key_coerce: co.Coercer | None = None
        if args[0] is int:
            schema["propertyNames"] = {"pattern": "^-?[0-9]+$"}
            key_coerce = co.by_call(int, "integer key")
        elif args[0] not in (str, Any):
            key = self.map(args[0])
            if key.schema.get("type") == "string" and len(key.schema) > 1:
                schema["propertyNames"] = key.schema
                key_coerce = key.coerce
        value = self.map(args[1])
        if value.schema:
            schema["additionalProperties"] = value.schema
        if key_coerce or value.coerce:
            return Mapped(schema, co.mapping(key_coerce, value.coerce))
        return Mapped(schema)

    # -- records ----------------------------------------------------------------------
    def _structured(self, cls: type) -> Mapped:
        if cls in self._done:
            return self._done[cls]
        if cls in self._active:  # recursion: refer to the definition being built
            name = self._recursive.setdefault(cls, self._def_name(cls))
            return Mapped({"$ref": f"#/$defs/{name}"}, lambda value, path: self._late[cls](value, path))
        self._active.add(cls)
        try:
            mapped = self._record(cls)
        finally:
            self._active.discard(cls)
        if cls in self._recursive:
            name = self._recursive[cls]
            self.defs[name] = mapped.schema
            assert mapped.coerce is not None  # records always rebuild their type
            self._late[cls] = mapped.coerce
            mapped = Mapped({"$ref": f"#/$defs/{name}"}, mapped.coerce)
        self._done[cls] = mapped
        return mapped

    def _record(self, cls: type) -> Mapped:
        hints = type_hints(cls, self._extra)
        docs = read_docstring(written_doc(cls))
        properties: dict[str, Any] = {}
        required: list[str] = []
        coercers: dict[str, co.Coercer] = {}
        for name, has_default, default, note in record_fields(cls, hints):
            mapped = self.map(hints.get(name, Any))
            description = note or docs.params.get(name)
            schema = member_schema(
                mapped.schema, has_default=has_default, default=default, description=description
            )
            if has_default:
                schema = published_member(schema, default)
            if not has_default:
                required.append(name)
            else:
                broken = default_breaks(schema, default)
                if broken is not None:  # refused as a parameter's is: the record's author meant one or the other
                    raise NotExpressible(f"field {cls.__qualname__}.{name}: {broken}")
                why = withheld_default(schema, default)
                if why:
                    self.unpublished.append((f"{cls.__qualname__}.{name}", why))
            properties[name] = schema
            if mapped.coerce is not None:
                coercers[name] = mapped.coerce
        schema = {"type": "object", "properties": properties, "required": required}
        if docs.description:
            schema["description"] = docs.description
        if typing.is_typeddict(cls):
            return Mapped(schema, co.fields(coercers, None))
        schema["additionalProperties"] = False
        return Mapped(schema, co.fields(coercers, cls))

    def _pydantic(self, model: type[Any]) -> Mapped:
        schema, left = model_schema(model)  # a field's default its own schema refuses left out, and said
        self.unpublished += left
        for name, definition in schema.pop("$defs", {}).items():
            self.defs.setdefault(name, definition)
        return Mapped(schema, co.fields({}, lambda **members: model.model_validate(members)))

    def _def_name(self, cls: type) -> str:
        name = cls.__name__
        taken = set(self.defs) | set(self._recursive.values())
        suffix = 2
        while name in taken:
            name, suffix = f"{cls.__name__}{suffix}", suffix + 1
        return name


def _literal(values: tuple[Any, ...]) -> Mapped:
    json_values = [v.value if isinstance(v, enum.Enum) else v for v in values]
    schema: dict[str, Any] = {"enum": json_values}
    kinds = {json_type(v) for v in json_values}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), **schema}
    members = {(type(j), j): v for v, j in zip(values, json_values, strict=True) if isinstance(v, enum.Enum)}
    return Mapped(schema, co.by_lookup(members) if members else None)


def _enum(cls: type[enum.Enum]) -> Mapped:
    members = list(cls)
    values = [m.value for m in members]
    if all(isinstance(v, (str, int, float, bool)) or v is None for v in values):
        schema: dict[str, Any] = {"enum": values}
        coercer = co.by_call(cls, cls.__name__)
    else:  # values JSON cannot carry (tuples, objects): publish the member names instead
        schema = {"enum": [m.name for m in members]}
        coercer = co.by_call(cls.__getitem__, cls.__name__)
    kinds = {json_type(v) for v in schema["enum"]}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), **schema}
    return Mapped(schema, coercer)
