"""jsonschema's validator classes with regular expressions and ``multipleOf`` checked as JSON Schema means them.

Every validator this package compiles (:mod:`.compiled`, a union member's test in :mod:`.mapping`) is of a class
from :func:`validator_class`, so a hand-written schema and one made from a ``Field(...)`` are read alike:

- ``pattern``: an ECMA-262 regular expression, run by :func:`.ecma_pattern.ecma_search` (``$`` is the end of
  the text; jsonschema's ``re.search`` let ``"run_1\\n"`` match ``^[a-z0-9_]+$``, review r38 F9; ``\\d``,
  ``\\w``, ``\\b`` are ASCII and ``\\s`` ECMA-262's white space: ``^\\d+$`` took ``"١٢٣"``).
- ``patternProperties`` and the ``additionalProperties`` that depends on its keys: each key read as a
  ``pattern`` is (:mod:`.property_patterns`; ``unevaluatedProperties`` is jsonschema's).
- ``multipleOf``: a value is a multiple of a float step when the quotient is within ``1e-9`` (plus four units
  in its last place) of a whole number. JSON numbers are decimals, read here as binary floats: jsonschema's
  exact ``int(q) == q`` refused ``0.3`` and ``0.7`` for ``multipleOf: 0.1`` (``0.3 / 0.1`` is
  ``2.9999999999999996``), which pydantic (``Field(multiple_of=0.1)``: a tolerance of its own) and the
  annotation accept (review r38 F1); ``0.35`` is still refused, and so is a value off a multiple by more
  than the float's own error (``1e12 + 0.05``). Integers (both the value and the step) are checked exactly.

The messages are jsonschema's own (``'x' does not match '^a$'``, ``0.35 is not a multiple of 0.1``).
jsonschema is imported when a class is first asked for.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nanohubmcp.schema.ecma_pattern import ecma_search

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = ["is_multiple", "validator_class"]

_TOLERANCE = 1e-9
"""How far from a whole number the quotient of a value by a float step may be (and 4 ulps of it)."""


@functools.cache
def validator_class(base: type[Validator]) -> type[Validator]:
    """``base`` (a jsonschema draft's validator class) with its ``pattern``, ``multipleOf`` and pattern-keyed
    property keywords (where it has them) checked as the module docstring says; one class per ``base``."""
    from jsonschema import _keywords
    from jsonschema.validators import extend

    from nanohubmcp.schema.property_patterns import PROPERTY_KEYWORDS

    ours: dict[str, Any] = {"pattern": _pattern, "multipleOf": _multiple_of}
    ours = {k: v for k, v in ours.items() if k in base.VALIDATORS}
    ours.update((k, v) for k, (v, theirs) in PROPERTY_KEYWORDS.items()
                if base.VALIDATORS.get(k) is getattr(_keywords, theirs, None))
    found: Any = extend(base, ours)
    return found


def is_multiple(value: int | float, step: int | float) -> bool:
    """Whether ``value`` is a multiple of ``step`` (> 0): exactly for two ints, within the module's tolerance
    when either is a float (``is_multiple(0.3, 0.1)`` is True, ``is_multiple(0.35, 0.1)`` False)."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    try:
        quotient = value / step
    except OverflowError:  # an int too large for a float
        quotient = math.inf
    except TypeError:  # a Decimal by a float
        quotient = float(value) / float(step)
    if not math.isfinite(quotient):  # exact, and bounded: at most a few hundred digits each side
        from fractions import Fraction

        return (Fraction(value) / Fraction(step)).denominator == 1
    return abs(quotient - round(quotient)) <= _TOLERANCE + 4 * math.ulp(quotient)


def _pattern(validator: Validator, pattern: str, instance: object, schema: object) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):  # type: ignore[arg-type]
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _multiple_of(validator: Validator, step: Any, instance: Any, schema: object) -> Iterator[ValidationError]:
    if validator.is_type(instance, "number") and not is_multiple(instance, step):
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} is not a multiple of {step}")
