"""JSON Schema's types of a Python value, as jsonschema's Draft 2020-12 type checker reads them, without importing
jsonschema: shared by the fast refusals (:mod:`.simple_errors`) and the registration check of defaults
(:mod:`.default_check`)."""

from __future__ import annotations

import numbers


def is_type(instance: object, name: str) -> bool:
    """jsonschema's Draft 2020-12 type checker (a bool is no number; 1.0 is an integer)."""
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    return isinstance(instance, numbers.Number)  # "number"
