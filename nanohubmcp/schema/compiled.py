"""A tool's JSON Schema compiled into a jsonschema validator, and refused at registration when unusable.

Refused: a schema that is not a JSON object, holds a value JSON cannot write (``inf``, ``nan``, a ``Decimal``:
:mod:`.json_form`), names an unknown ``$schema``, breaks its draft's meta-schema, or has a ``$ref`` that
resolves neither in the schema itself nor to a JSON Schema meta-schema (other documents are never fetched: not
at registration, not while validating a call). What a validator then does with a call's arguments or a tool's
result is :mod:`.validate`'s.
jsonschema is imported here only when a schema is compiled (by :mod:`.iri_grammar`: the RFC 3987
grammar it would build at import waits for the first ``iri`` check).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema.ecma_pattern import check_patterns
from nanohubmcp.schema.iri_grammar import load_jsonschema
from nanohubmcp.schema.json_form import check_json_form
from nanohubmcp.schema.keywords import validator_class
from nanohubmcp.schema.paths import format_path, shorten

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


def compile_schema(schema: object, label: str, what: str) -> Validator:
    """The jsonschema validator of ``schema`` (its ``$schema``'s draft, else Draft 2020-12), with
    format checking, a registry of the JSON Schema meta-schemas only (nothing is fetched), and ``pattern``,
    ``patternProperties`` and ``multipleOf`` read as JSON Schema means them (:mod:`.keywords`; each pattern
    compiled here, once).

    ``label`` and ``what`` name it in messages (``"tool 'add'"``, ``"input schema"``).

    Raises:
        RegistrationError: ``"tool 'add': invalid input schema: …"`` when ``schema`` is not a JSON object,
            holds ``inf`` or ``nan`` (published, it would read ``null``), names an unknown ``$schema``, is not
            a valid schema of its draft (the message names where), or has a ``$ref`` that leads nowhere.
    """
    load_jsonschema()  # its RFC 3987 grammar (~0.9 s) built at the first "iri" check, not now
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for
    from jsonschema_specifications import REGISTRY as SPECIFICATIONS

    if not isinstance(schema, dict):
        raise RegistrationError(f"{label}: invalid {what}: expected a JSON object, got {type(schema).__name__}")
    check_json_form(schema, label, what)
    # validator_for answers its default for a missing or unknown $schema (its stubs only admit a class there).
    unknown: Any = None
    cls = validator_for(schema, default=unknown)
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
    check_patterns(schema, label, what)  # each pattern read as ECMA-262 and compiled now, not at a call
    # Our own registry (the JSON Schema meta-schemas only): jsonschema's default one would
    # fetch unknown http(s) references over the network while validating a call.
    ours = validator_class(cls)  # pattern (ECMA-262's $) and float multipleOf as JSON Schema means them
    return ours(schema, format_checker=cls.FORMAT_CHECKER, registry=SPECIFICATIONS)


def _check_refs(schema: dict[str, Any], label: str, what: str) -> None:
    """Fail at registration, not at the first call, on a ``$ref`` that leads nowhere.

    Same-document references and the meta-schemas resolve; other documents are never fetched.
    """
    refs = list(_refs(schema))
    if not refs or _has_nested_id(schema, top=True):
        return  # nested $id scopes change what a reference is relative to; left to call time
    from jsonschema_specifications import REGISTRY as SPECIFICATIONS
    from referencing import Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resolver = SPECIFICATIONS.resolver_with_root(Resource.from_contents(schema, default_specification=DRAFT202012))
    for ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            raise RegistrationError(
                f"{label}: invalid {what}: $ref {ref!r} points nowhere (other documents are not fetched)"
            ) from None


def _refs(node: object) -> Iterator[str]:
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


def _has_nested_id(node: object, *, top: bool = False) -> bool:
    if isinstance(node, dict):
        if not top and isinstance(node.get("$id"), str):
            return True
        return any(_has_nested_id(v) for k, v in node.items() if k not in ("const", "enum", "default", "examples"))
    if isinstance(node, list):
        return any(_has_nested_id(v) for v in node)
    return False
