"""A pydantic model's JSON Schema as a tool publishes it: without a field's default that the field's own schema refuses.

pydantic writes a field's default into the model's schema as given, checked against nothing (unless the field asks
for ``validate_default``), so ``x: int = "a"`` is published as ``{"type": "integer", "default": "a"}``: a schema
that rejects its own default, read by every client (a form fills the field with it, and the call is refused). As for
a parameter's or a dataclass field's default (:func:`.default_check.withheld_default`), such a default is left out
of the published schema, and the registration warns naming the field; so is one that breaks the field's own
constraint (``Field(ge=0)`` defaulting to ``-1``, a ``pattern`` it does not match:
:func:`.default_check.default_breaks`), which a parameter's registration refuses but a model may hold. The same
holds at every depth: each field of each model of the schema's ``$defs`` (the nested models), and a default holding
a nested model's value (``inner: Inner = Inner()``, a list of them) is checked against that model's fields, through
its ``$ref``. The model itself is unchanged: a call leaving the field out gets what ``model_validate`` makes of it
(the default as given; with ``validate_default``, the default converted, or the call refused in pydantic's words).

Nothing is imported: the schema is the model's own ``model_json_schema()``, read as JSON.
"""

from __future__ import annotations

from typing import Any

from nanohubmcp.schema.default_check import default_breaks, withheld_default

__all__ = ["model_schema"]


def model_schema(model: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``model.model_json_schema()`` (a pydantic model class) with each field's default that its schema refuses
    (its type or its constraints, through the ``$defs`` it refers to), or that JSON cannot write (NaN, an int of
    5,000 digits), left out, in the model and in each model of its ``$defs``; and for each left out,
    ``("Model.field", why)`` (``why``: ``"'a' is not of its type integer, so a call leaving it out runs the
    function with a value no client may send; change the default or the annotation"``).

    .. versionchanged:: 1.0
       A default breaking its field's constraint, or holding a nested model's value that breaks one of that
       model's, is left out too (it was published)."""
    schema = dict(model.model_json_schema())
    left: list[tuple[str, str]] = []
    found = schema.get("$defs")
    defs: dict[str, Any] = found if isinstance(found, dict) else {}
    schema = _published(schema, getattr(model, "__qualname__", "model"), defs, left)
    if defs:
        schema["$defs"] = {name: _published(definition, name, defs, left) for name, definition in defs.items()}
    return schema, left


def _published(schema: Any, name: str, defs: dict[str, Any], left: list[tuple[str, str]]) -> Any:
    """``schema`` (an object schema pydantic made) with the defaults :func:`withheld_default` or
    :func:`default_breaks` names left out of its properties, each said in ``left``."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return schema
    kept: dict[str, Any] = {}
    for field, member in properties.items():
        if isinstance(member, dict) and "default" in member:
            default = member["default"]
            why = withheld_default(member, default, defs) or default_breaks(member, default, defs)
            if why is not None:
                member = {key: value for key, value in member.items() if key != "default"}
                left.append((f"{name}.{field}", why))
        kept[field] = member
    return {**schema, "properties": kept}
