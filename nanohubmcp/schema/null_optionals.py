"""Which optional properties of an input schema refuse ``null``: a call giving ``null`` for one of them has it
dropped, as if left out (:class:`.validate.ArgumentValidator`), rather than refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nanohubmcp.errors import RegistrationError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["null_rejecting_optionals"]


def null_rejecting_optionals(
    validator: Callable[[], Validator], fast: bool, schema: dict[str, Any], label: str
) -> frozenset[str]:
    """Optional properties whose schema refuses ``null`` (a given ``null`` is dropped).

    ``validator`` makes the schema's jsonschema validator (compiled only when the fast path cannot answer);
    ``label`` names the schema in the error (``"tool 'f'"``).

    Raises:
        RegistrationError: a ``$ref`` under a nested ``$id`` that leads nowhere.

    With the fast path (every subschema in the keyword set where Draft-07 and 2020-12 agree)
    each property's own subschema answers; otherwise the whole schema is probed through
    jsonschema, so ``$ref`` and ``$id`` scopes resolve as they will for real calls.
    """
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    optional = [name for name in properties if name not in required]
    if fast:
        # compile_fast covers the whole schema, so each property subschema is in the safe set
        # and its answer equals jsonschema's.
        from nanohubmcp.schema.fastpath import compile_fast

        checks = {name: compile_fast(properties[name]) for name in optional}
        if all(check is not None for check in checks.values()):
            return frozenset(name for name, check in checks.items() if not check(None))  # type: ignore[misc]
    from referencing.exceptions import Unresolvable

    compiled = validator()
    names = set()
    for name in optional:
        try:
            errors = list(compiled.iter_errors({name: None}))
        except Unresolvable as exc:  # a reference under a nested $id that leads nowhere
            raise RegistrationError(f"{label}: invalid input schema: {exc}") from None
        if any(list(e.absolute_path)[:1] == [name] for e in errors):
            names.add(name)
    return frozenset(names)
