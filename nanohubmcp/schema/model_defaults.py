"""A pydantic model's JSON Schema as a tool publishes it: without a field's default that the field's own schema refuses.

pydantic writes a field's default into the model's schema as given, checked against nothing (unless the field asks
for ``validate_default``), so ``x: int = "a"`` is published as ``{"type": "integer", "default": "a"}``: a schema
that rejects its own default, read by every client (a form fills the field with it, and the call is refused). As for
a parameter's or a dataclass field's default (:func:`.default_check.withheld_default`), such a default is left out
of the published schema, and the registration warns naming the field. The model itself is unchanged: a call leaving
the field out gets what ``model_validate`` makes of it (the default as given; with ``validate_default``, the
default converted, or the call refused in pydantic's words).

Nothing is imported: the schema is the model's own ``model_json_schema()``, read as JSON.
"""

from __future__ import annotations

from typing import Any

from nanohubmcp.schema.default_check import withheld_default

__all__ = ["model_schema"]


def model_schema(model: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``model.model_json_schema()`` (a pydantic model class) with each field's default that its schema refuses,
    or that JSON cannot write (NaN), left out, in the model and in each model of its ``$defs``; and for each left
    out, ``("Model.field", why)`` (``why``: ``"'a' is not of its type integer, so a call leaving it out runs the
    function with a value no client may send; change the default or the annotation"``)."""
    schema = dict(model.model_json_schema())
    left: list[tuple[str, str]] = []
    schema = _published(schema, getattr(model, "__qualname__", "model"), left)
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        schema["$defs"] = {name: _published(definition, name, left) for name, definition in defs.items()}
    return schema, left


def _published(schema: Any, name: str, left: list[tuple[str, str]]) -> Any:
    """``schema`` (an object schema pydantic made) with the defaults :func:`withheld_default` names left out of its
    properties, each said in ``left``."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return schema
    kept: dict[str, Any] = {}
    for field, member in properties.items():
        if isinstance(member, dict) and "default" in member:
            why = withheld_default(member, member["default"])
            if why is not None:
                member = {key: value for key, value in member.items() if key != "default"}
                left.append((f"{name}.{field}", why))
        kept[field] = member
    return {**schema, "properties": kept}
