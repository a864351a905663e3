"""The keywords that run a ``patternProperties`` key against an object's keys, with the key read as ECMA-262 reads it.

A ``patternProperties`` key is an ECMA-262 regular expression (JSON Schema 2020-12 Core § 10.3.2.2), as a
``pattern`` is: :func:`.ecma_pattern.ecma_search` runs it (``$`` the end of the key, ``.`` at no line terminator,
``\\d``/``\\w`` ASCII, ``\\s`` ECMA-262's white space). jsonschema ran it with Python's ``re.search``, so
``{"patternProperties": {"^x_.+$": ...}, "additionalProperties": false}`` took a key ``"x_a\\n"``, and a key
``"x_\\u0661"`` matched ``^x_\\d$``, where a client's validator refuses both. Three keywords read those keys:

- ``patternProperties``: each key of the value it matches is checked against its subschema;
- ``additionalProperties``: the keys neither ``properties`` names nor a ``patternProperties`` key matches;
- ``unevaluatedProperties`` (Draft 2020-12): the keys no applicator evaluated, a matched one among them. (Draft
  2019-09's is jsonschema's own: its ``patternProperties`` keys are read as Python reads them there.)

Each is jsonschema's, with the same messages and error paths, but for the reading of the pattern; each pattern is
tried alone (jsonschema joined them with ``|`` into one, which a group number or a flag of one of them changes).
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
    if not validator.is_type(instance, "object"):
        return
    extras = set(_extras(instance, schema))
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        from jsonschema._utils import extras_msg
        from jsonschema.exceptions import ValidationError

        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            listed, verb = extras_msg(sorted(extras, key=str))
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def unevaluated_properties(validator: Any, unevaluated: Any, instance: Any,
                           schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``unevaluatedProperties`` (Draft 2020-12): the keys of ``instance`` no applicator of ``schema`` evaluated."""
    if not validator.is_type(instance, "object"):
        return
    from jsonschema._utils import extras_msg
    from jsonschema.exceptions import ValidationError

    evaluated = _evaluated_keys(validator, instance, schema)
    invalid = [key for key in instance if key not in evaluated
               and _fails(validator.descend(instance[key], unevaluated, path=key, schema_path=key))]
    if not invalid:
        return
    if unevaluated is False:
        listed, verb = extras_msg(sorted(invalid, key=str))
        yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
    else:
        listed, verb = extras_msg(invalid)
        yield ValidationError(f"Unevaluated properties are not valid under the given schema ({listed} {verb} "
                              "unevaluated and invalid)")


def _fails(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is not None


def _evaluated_keys(validator: Any, instance: dict[str, Any], schema: Any) -> set[str]:
    """The keys of ``instance`` that ``schema`` (Draft 2020-12) evaluates: those its ``properties`` name, its
    ``patternProperties`` keys match, its ``additionalProperties``/``unevaluatedProperties`` take, and those of the
    subschemas that apply (``$ref``, ``$dynamicRef``, ``dependentSchemas``, a valid ``allOf``/``anyOf``/``oneOf``
    member, ``if`` with ``then`` or ``else``)."""
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        reference = schema.get(keyword)
        if reference is not None:
            resolved = validator._resolver.lookup(reference)
            below = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(below, instance, resolved.contents)
    named = schema.get("properties")
    if validator.is_type(named, "object"):
        keys |= named.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys.update(key for key, value in instance.items() if not _fails(validator.descend(value, subschema)))
    if "patternProperties" in schema:
        keys.update(key for key in instance if _matched(schema["patternProperties"], key))
    for key, subschema in schema.get("dependentSchemas", {}).items():
        if key in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if not _fails(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


PROPERTY_KEYWORDS = {
    "patternProperties": (pattern_properties, "patternProperties"),
    "additionalProperties": (additional_properties, "additionalProperties"),
    "unevaluatedProperties": (unevaluated_properties, "unevaluatedProperties"),
}
"""Keyword -> (ours, the name of jsonschema's function it stands for in ``jsonschema._keywords``): a draft's
validator class takes ours where it runs that function (:func:`.keywords.validator_class`)."""
