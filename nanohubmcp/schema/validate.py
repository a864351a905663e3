"""Check call arguments and structured results against JSON Schemas.

Owns the compiled jsonschema validators of one component. Every JSON Schema keyword works
(``allOf``/``anyOf``/``oneOf``/``not``, ``if``/``then``/``else``, ``$defs``/``$ref``,
``format``, ``uniqueItems``, ``patternProperties``…) because jsonschema does the work; a
schema without ``$schema`` is read as Draft 2020-12 (the MCP default). JSON semantics
apply: ``true`` is not an integer, ``5.0`` is.

Validation is on the hot path: each validator is compiled once, ``is_valid`` runs first and
violations are collected only on failure.

Source: MCP 2025-11-25, Server § Tools (``inputSchema``/``outputSchema``, SEP-1303 for
argument errors); JSON Schema 2020-12 Core and Validation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing import Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema.fastpath import compile_fast
from nanohubmcp.schema.paths import format_path, invalid_arguments, shorten

_ABSENT = object()


class ArgumentValidator:
    """Validates the ``arguments`` of calls to one tool (or prompt) against its input schema.

    Args:
        schema: the input schema (a JSON object schema).
        name: the component's name, for messages.
        kind: ``"tool"`` (default) or ``"prompt"``, for messages.

    Raises:
        RegistrationError: ``"tool 'add': invalid input schema: …"`` when the schema is not
            a valid JSON Schema, names an unknown ``$schema`` or has a ``$ref`` that resolves
            neither in the schema itself nor to a JSON Schema meta-schema.
    """

    __slots__ = ("_drop_null", "_fast", "_kind", "_name", "_validator")

    def __init__(self, schema: dict[str, Any], *, name: str, kind: str = "tool") -> None:
        self._validator = _compile(schema, f"{kind} {name!r}", "input schema")
        self._fast = compile_fast(schema)
        self._kind = kind
        self._name = name
        self._drop_null = _null_rejecting_optionals(self._validator, schema, f"{kind} {name!r}")

    @property
    def schema(self) -> dict[str, Any]:
        """The schema being enforced."""
        schema: dict[str, Any] = self._validator.schema
        return schema

    def validate(self, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Check ``arguments`` and return them, ready for ``Signature.coerce``.

        ``null`` given for an optional property whose schema does not accept ``null`` is
        removed first, so the function's own default applies (clients often send ``null``
        for "not given"). ``None`` for the whole arguments means ``{}``.

        Returns:
            ``arguments``, or a cleaned copy when ``null`` values were dropped.

        Raises:
            InvalidArguments: one message line per violation, e.g.
                ``Invalid arguments for tool 'add': arguments.b: 'x' is not of type 'number'``;
                ``.errors`` holds the lines.
        """
        if arguments is None:
            arguments = {}
        if (
            self._drop_null
            and isinstance(arguments, dict)
            and any(arguments.get(key, _ABSENT) is None for key in self._drop_null)
        ):
            arguments = {k: v for k, v in arguments.items() if v is not None or k not in self._drop_null}
        if (self._fast is not None and self._fast(arguments)) or self._validator.is_valid(arguments):
            return arguments
        raise invalid_arguments(self._kind, self._name, _violations(self._validator, arguments, "arguments"))


class OutputValidator:
    """Validates a tool's structured result against its output schema.

    Args:
        schema: the output schema.
        name: the tool's name, for messages.
        kind: ``"tool"`` (default), for messages.

    Raises:
        RegistrationError: ``"tool 'f': invalid output schema: …"`` for an unusable schema.
    """

    __slots__ = ("_validator",)

    def __init__(self, schema: dict[str, Any], *, name: str, kind: str = "tool") -> None:
        self._validator = _compile(schema, f"{kind} {name!r}", "output schema")

    @property
    def schema(self) -> dict[str, Any]:
        """The schema being enforced."""
        schema: dict[str, Any] = self._validator.schema
        return schema

    def errors(self, value: Any) -> list[str]:
        """Return one ``"result.<path>: <problem>"`` line per violation; ``[]`` when valid."""
        if self._validator.is_valid(value):
            return []
        return [shorten(v) for v in _violations(self._validator, value, "result")]


def _compile(schema: Any, label: str, what: str) -> Validator:
    if not isinstance(schema, dict):
        raise RegistrationError(
            f"{label}: invalid {what}: expected a JSON object, got {type(schema).__name__}"
        )
    cls = validator_for(schema, default=None)
    if cls is None:
        if "$schema" in schema:
            raise RegistrationError(f"{label}: invalid {what}: unknown $schema {schema['$schema']!r}")
        cls = Draft202012Validator
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = format_path("schema", exc.path)
        raise RegistrationError(f"{label}: invalid {what}: {shorten(exc.message)} (at {where})") from None
    _check_refs(schema, label, what)
    # Our own registry (the JSON Schema meta-schemas only): jsonschema's default one would
    # fetch unknown http(s) references over the network while validating a call.
    return cls(schema, format_checker=cls.FORMAT_CHECKER, registry=SPECIFICATIONS)


def _check_refs(schema: dict[str, Any], label: str, what: str) -> None:
    """Fail at registration, not at the first call, on a ``$ref`` that leads nowhere.

    Same-document references and the meta-schemas resolve; other documents are never fetched.
    """
    refs = list(_refs(schema))
    if not refs or _has_nested_id(schema, top=True):
        return  # nested $id scopes change what a reference is relative to; left to call time
    resolver = SPECIFICATIONS.resolver_with_root(
        Resource.from_contents(schema, default_specification=DRAFT202012)
    )
    for ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            raise RegistrationError(
                f"{label}: invalid {what}: $ref {ref!r} points nowhere (other documents are not fetched)"
            ) from None


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for key, value in node.items():
            if key not in ("const", "enum", "default", "examples"):  # data, not subschemas
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _has_nested_id(node: Any, *, top: bool = False) -> bool:
    if isinstance(node, dict):
        if not top and isinstance(node.get("$id"), str):
            return True
        return any(
            _has_nested_id(v) for k, v in node.items() if k not in ("const", "enum", "default", "examples")
        )
    if isinstance(node, list):
        return any(_has_nested_id(v) for v in node)
    return False


def _null_rejecting_optionals(validator: Validator, schema: dict[str, Any], label: str) -> frozenset[str]:
    """Optional properties whose schema refuses ``null`` (a given ``null`` is dropped).

    Probed through the whole schema, so ``$ref`` and ``$id`` scopes resolve as they will
    for real calls.
    """
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    names = set()
    for name in properties:
        if name in required:
            continue
        try:
            errors = list(validator.iter_errors({name: None}))
        except Unresolvable as exc:  # a reference under a nested $id that leads nowhere
            raise RegistrationError(f"{label}: invalid input schema: {exc}") from None
        if any(list(e.absolute_path)[:1] == [name] for e in errors):
            names.add(name)
    return frozenset(names)


def _violations(validator: Validator, instance: Any, root: str) -> list[str]:
    errors = sorted(
        validator.iter_errors(instance),
        key=lambda e: ([str(p) for p in e.absolute_path], e.message),
    )
    return [f"{format_path(root, e.absolute_path)}: {e.message}" for e in errors]
