"""``Secret``: the annotation of a tool parameter whose value must never be kept.

``def login(user: str, password: Secret) -> ...``: the input schema says
``{"type": "string", "format": "password", "writeOnly": true}`` (JSON Schema 2020-12,
Validation § 9.4 ``writeOnly``; OpenAPI's ``password`` format), clients may mask the field, and
the server's provenance records and job records store the argument's name, never its value.
"""

from __future__ import annotations

from typing import Annotated, Any

Secret = Annotated[str, {"format": "password", "writeOnly": True}]
"""A string argument that is never stored (provenance and job records keep its name only)."""

SECRET_FORMATS = frozenset({"password"})
"""Values of ``format`` that mark a property secret (besides ``writeOnly: true``)."""
REDACTED = "[secret: not stored]"
"""What a record keeps in place of a secret argument's value."""


def secret_names(schema: dict[str, Any]) -> frozenset[str]:
    """The top-level argument names ``schema`` marks secret (``format: password``, ``writeOnly``)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    return frozenset(name for name, prop in properties.items() if _is_secret(prop))


def _is_secret(prop: object) -> bool:
    if not isinstance(prop, dict):
        return False
    if prop.get("format") in SECRET_FORMATS or prop.get("writeOnly") is True:
        return True
    return any(_is_secret(choice) for key in ("anyOf", "oneOf", "allOf") for choice in prop.get(key) or ())


def stored_arguments(arguments: dict[str, Any], secrets: frozenset[str]) -> dict[str, Any]:
    """``arguments`` with each secret one's value replaced by a marker (the name stays, not the value)."""
    if not secrets:
        return arguments
    return {name: REDACTED if name in secrets else value for name, value in arguments.items()}

