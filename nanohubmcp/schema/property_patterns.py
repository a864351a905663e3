"""The keywords that run a ``patternProperties`` key against an object's keys, with the key read as ECMA-262 reads it.

A ``patternProperties`` key is an ECMA-262 regular expression (JSON Schema 2020-12 Core § 10.3.2.2), as a
``pattern`` is: :func:`.ecma_pattern.ecma_search` runs it (``$`` the end of the key, ``.`` at no line terminator,
``\\d``/``\\w`` ASCII, ``\\s`` ECMA-262's white space). jsonschema ran it with Python's ``re.search``, so
``{"patternProperties": {"^x_.+$": ...}, "additionalProperties": false}`` took a key ``"x_a\\n"``, and a key
``"x_\\u0661"`` matched ``^x_\\d$``, where a client's validator refuses both. Two keywords read those keys here:

- ``patternProperties``: each key of the value it matches is checked against its subschema;
- ``additionalProperties``: the keys neither ``properties`` names nor a ``patternProperties`` key matches (without
  ``patternProperties`` beside it, jsonschema's own keyword runs, its messages unchanged).

Each pattern is tried alone. ``unevaluatedProperties`` is still jsonschema's: the keys it counts as evaluated by a
``patternProperties`` are matched as Python reads the patterns (docs/api/summary.md says so).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nanohubmcp.schema.ecma_pattern import ecma_search

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["PROPERTY_KEYWORDS"]


def _matched(patterns: object, key: str) -> bool:
    """Whether one of the ``patternProperties`` keys ``patterns`` matches ``key`` as ECMA-262 reads them."""
    return isinstance(patterns, dict) and any(ecma_search(pattern, key) for pattern in patterns)


def _extras(instance: dict[str, Any], schema: dict[str, Any]) -> Iterator[str]:
    """The keys of ``instance`` that ``schema``'s ``properties`` does not name nor a ``patternProperties`` key
    matches (what ``additionalProperties`` checks)."""
    named = schema.get("properties", {})
    patterns = schema.get("patternProperties")
    for key in instance:
        if key not in named and not (patterns and _matched(patterns, key)):
            yield key


def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any,
                       schema: object) -> Iterator[ValidationError]:
    """``patternProperties``: each key of ``instance`` a pattern matches, checked against that pattern's subschema."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if ecma_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def additional_properties(validator: Any, additional: Any, instance: Any,
                          schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``additionalProperties``: the keys of ``instance`` no ``properties`` entry names and no pattern matches."""
    if "patternProperties" not in schema:
        from jsonschema import _keywords

        theirs: Any = _keywords.additionalProperties  # a generator (its stub says it returns None)
        yield from theirs(validator, additional, instance, schema)
        return
    if not validator.is_type(instance, "object"):
        return
    extras = sorted(set(_extras(instance, schema)))
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        from jsonschema.exceptions import ValidationError

        keys = ", ".join(repr(each) for each in extras)
        patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
        verb = "does" if len(extras) == 1 else "do"
        yield ValidationError(f"{keys} {verb} not match any of the patternProperties patterns ({patterns}) "
                              "and additionalProperties is false")


PROPERTY_KEYWORDS = {
    "patternProperties": (pattern_properties, "patternProperties"),
    "additionalProperties": (additional_properties, "additionalProperties"),
}
"""Keyword -> (ours, the name of jsonschema's function it stands for in ``jsonschema._keywords``): a draft's
validator class takes ours where it runs that function (:func:`.keywords.validator_class`)."""
