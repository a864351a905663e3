"""The violations of the simple input schemas, found without jsonschema, with jsonschema's own messages.

A call whose arguments the fast path (:mod:`.fastpath`) refuses needs the reasons, and until now only
jsonschema gave them: the first invalid call of a process imported it (0.8-2.5 s where Jupyter's
format checkers are installed: ``rfc3987-syntax`` builds a grammar at import; trial10 F3b, trial11
F16). The schemas made from signatures use a few keywords; for a schema made only of those
(:func:`covers`), :func:`violations` yields what ``Draft202012Validator.iter_errors`` yields for them,
in its order, each with the same message, path, instance and keyword value (jsonschema 4.x's texts,
``jsonschema/_keywords.py``; tests compare the two on generated schemas and values). A schema with any
other keyword, or an answer of no violation at all (the fast path and this module disagreeing), still
goes to jsonschema, which stays the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, cast

from nanohubmcp.schema.json_types import is_type

_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"})
_COUNTS = frozenset({"minLength", "maxLength", "minItems", "maxItems"})
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_SCALARS = (str, int, float, bool, type(None))


class Violation(NamedTuple):
    """One violation, as a ``jsonschema.ValidationError`` would carry it."""

    path: tuple[str | int, ...]
    """Where in the value (``absolute_path``), outermost first."""
    message: str
    instance: Any
    """The value at :attr:`path`."""
    keyword_value: Any
    """The schema keyword's value (``validator_value``)."""


def covers(schema: object) -> bool:
    """Whether every keyword of ``schema`` (and of its subschemas) is one :func:`violations` checks
    as jsonschema does (Draft 2020-12; no ``$schema``, ``$ref``, ``pattern``, ``format`` but
    ``password``, ``prefixItems``…)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "type":
            types = [value] if isinstance(value, str) else value
            if not isinstance(types, list) or not types or not all(t in _TYPES for t in types):
                return False
        elif key == "properties":
            if not isinstance(value, dict) or not all(covers(v) for v in value.values()):
                return False
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return False
        elif key in ("additionalProperties", "items"):
            if not covers(value):
                return False
        elif key == "anyOf":
            if not isinstance(value, list) or not value or not all(covers(v) for v in value):
                return False
        elif key == "enum":
            if not isinstance(value, list) or not all(isinstance(v, _SCALARS) for v in value):
                return False
        elif key == "const":
            if not isinstance(value, _SCALARS):
                return False
        elif key in _BOUNDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False
        elif key in _COUNTS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                return False
        elif key == "format":
            if value != "password":  # an annotation only (no checker): OpenAPI's, our Secret's
                return False
        else:
            return False
    return True


def _equal(one: object, two: object) -> bool:
    """jsonschema's ``equal`` where one side is a scalar (what :func:`covers` lets ``enum``/``const`` hold)."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, bool) or isinstance(two, bool):  # True is not 1 (both bools: `is` above)
        return False
    return bool(one == two)


def violations(schema: object, instance: object, path: tuple[str | int, ...] = ()) -> Iterator[Violation]:
    """What jsonschema's ``iter_errors`` yields for ``instance`` against a schema :func:`covers`
    accepts, in its order (the schema's keywords in their order)."""
    if schema is True:
        return
    if schema is False:
        yield Violation(path, f"False schema does not allow {instance!r}", instance, None)
        return
    assert isinstance(schema, dict)
    for key, value in schema.items():
        if key == "type":
            types = [value] if isinstance(value, str) else value
            if not any(is_type(instance, name) for name in types):
                shown = ", ".join(repr(name) for name in types)
                yield Violation(path, f"{instance!r} is not of type {shown}", instance, value)
        elif key == "properties":
            if isinstance(instance, dict):
                for name, subschema in value.items():
                    if name in instance:
                        yield from _descend(subschema, instance[name], path, name)
        elif key == "required":
            if isinstance(instance, dict):
                for name in value:
                    if name not in instance:
                        yield Violation(path, f"{name!r} is a required property", instance, value)
        elif key == "additionalProperties":
            yield from _additional(schema, value, instance, path)
        elif key == "items":
            yield from _items(value, instance, path)
        elif key == "anyOf":
            if not any(next(violations(subschema, instance, path), None) is None for subschema in value):
                yield Violation(path, f"{instance!r} is not valid under any of the given schemas", instance, value)
        elif key == "enum":
            if all(not _equal(each, instance) for each in value):
                yield Violation(path, f"{instance!r} is not one of {value!r}", instance, value)
        elif key == "const":
            if not _equal(instance, value):
                yield Violation(path, f"{value!r} was expected", instance, value)
        elif key in _BOUNDS:
            found = _bound(key, value, instance)
            if found is not None:
                yield Violation(path, found, instance, value)
        elif key in _COUNTS:
            found = _count(key, value, instance)
            if found is not None:
                yield Violation(path, found, instance, value)


def _descend(schema: object, instance: object, path: tuple[str | int, ...], step: str | int) -> Iterator[Violation]:
    """A subschema's violations at ``step`` below ``path``; a ``false`` subschema's stays at ``path``
    (jsonschema's ``descend`` returns it before adding the step)."""
    yield from violations(schema, instance, path if schema is False else (*path, step))


def _additional(
    schema: dict[str, Any], value: object, instance: object, path: tuple[str | int, ...]
) -> Iterator[Violation]:
    if not isinstance(instance, dict):
        return
    known = schema.get("properties", {})
    extras = {name for name in instance if name not in known}  # a set, iterated as jsonschema iterates its own
    if isinstance(value, dict):
        for extra in extras:
            yield from _descend(value, instance[extra], path, extra)
    elif value is False and extras:
        names = sorted(extras, key=str)
        verb = "was" if len(names) == 1 else "were"
        shown = ", ".join(repr(name) for name in names)
        yield Violation(path, f"Additional properties are not allowed ({shown} {verb} unexpected)", instance, value)


def _items(value: object, instance: object, path: tuple[str | int, ...]) -> Iterator[Violation]:
    if not isinstance(instance, list) or not instance:
        return
    if value is False:
        rest = instance if len(instance) != 1 else instance[0]
        yield Violation(path, f"Expected at most 0 items but found {len(instance)} extra: {rest!r}", instance, value)
        return
    for index, item in enumerate(instance):
        yield from _descend(value, item, path, index)


def _bound(key: str, bound: float, value: object) -> str | None:
    if not is_type(value, "number"):
        return None
    instance = cast(float, value)  # a number (any numbers.Number but bool, as jsonschema compares them)
    if key == "minimum" and instance < bound:
        return f"{instance!r} is less than the minimum of {bound!r}"
    if key == "maximum" and instance > bound:
        return f"{instance!r} is greater than the maximum of {bound!r}"
    if key == "exclusiveMinimum" and instance <= bound:
        return f"{instance!r} is less than or equal to the minimum of {bound!r}"
    if key == "exclusiveMaximum" and instance >= bound:
        return f"{instance!r} is greater than or equal to the maximum of {bound!r}"
    return None


def _count(key: str, limit: int, value: object) -> str | None:
    kind = "string" if key.endswith("Length") else "array"
    if not is_type(value, kind):
        return None
    instance = cast("str | list[object]", value)
    if key.startswith("min") and len(instance) < limit:
        return f"{instance!r} {'should be non-empty' if limit == 1 else 'is too short'}"
    if key.startswith("max") and len(instance) > limit:
        return f"{instance!r} {'is expected to be empty' if limit == 0 else 'is too long'}"
    return None
