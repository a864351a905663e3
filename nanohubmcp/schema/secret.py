"""``Secret``: the annotation of a tool parameter whose value must never be kept.

``def login(user: str, password: Secret) -> ...``: the input schema says
``{"type": "string", "format": "password", "writeOnly": true}`` (JSON Schema 2020-12,
Validation § 9.4 ``writeOnly``; OpenAPI's ``password`` format), clients may mask the field, and
the server's provenance records and job records store the argument's name, never its value.

The marking holds at any depth: a ``Secret`` field of a TypedDict, dataclass or pydantic model,
the items of ``list[Secret]``, the values of ``dict[str, Secret]``, ``Secret | None``.
:func:`secret_plan` reads once, from a tool's input schema, where its secret values sit;
:func:`stored_arguments` replaces them by :data:`REDACTED` in what is stored.

A value JSON has no form for (only ``server.call`` can pass one: a dataclass or pydantic model
*instance*, any other object) is stored in the form :func:`stored_form` gives it, which reads the
marking from the value's own class: its ``Secret`` fields are replaced too.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

from nanohubmcp.schema.paths import pointed


class SchemaKeys(Mapping[str, Any]):
    """``Annotated`` metadata adding JSON Schema keywords to the annotated type's schema.

    Hashable (``Secret | None`` and ``Optional[Secret]`` need hashable metadata), read-only, and
    understood by pydantic too (``__get_pydantic_json_schema__``), so a model's ``Secret`` field is
    marked in its schema as a parameter's is.
    """

    __slots__ = ("_keys",)

    def __init__(self, **keys: Any) -> None:
        self._keys = dict(keys)

    def __getitem__(self, key: str) -> Any:
        return self._keys[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._keys.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._keys) == dict(other)

    def __repr__(self) -> str:
        return f"SchemaKeys({self._keys!r})"

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> Any:
        schema = handler(core_schema)
        schema.update(self._keys)
        return schema


Secret = Annotated[str, SchemaKeys(format="password", writeOnly=True)]
"""A string argument that is never stored (provenance and job records keep its name only)."""

SECRET_FORMATS = frozenset({"password"})
"""Values of ``format`` that mark a property secret (besides ``writeOnly: true``)."""
REDACTED = "[secret: not stored]"
"""What a record keeps in place of a secret argument's value."""


class Plan:
    """Where the secret values of a value of one schema sit (a graph: recursive types loop).

    Attributes:
        secret: the whole value is secret (an absent or null value stays as it is).
        properties: plans of the members named so (``properties``), None for one holding no secret.
        rest: plan of every other member (``additionalProperties``), or None.
        prefix: plans of the first items (``prefixItems``), None where nothing is secret.
        items: plan of every other item (``items``), or None.
        also: plans that apply to the same value too (the targets of its ``$ref``s).
    """

    __slots__ = ("also", "items", "prefix", "properties", "rest", "secret")

    def __init__(self) -> None:
        self.secret = False
        self.properties: dict[str, Plan | None] = {}
        self.rest: Plan | None = None
        self.prefix: list[Plan | None] = []
        self.items: Plan | None = None
        self.also: list[Plan] = []

    def _children(self) -> Iterator[Plan]:
        yield from (plan for plan in self.properties.values() if plan is not None)
        yield from (plan for plan in (self.rest, self.items, *self.prefix) if plan is not None)
        yield from self.also


def secret_plan(schema: dict[str, Any]) -> Plan | None:
    """Where ``schema`` (a tool's input schema) marks values secret (``format: password``,
    ``writeOnly: true``) at any depth: ``properties``, ``additionalProperties``, ``items``,
    ``prefixItems``, ``anyOf``/``oneOf``/``allOf`` and local ``$ref``s (``#/...``); None when
    nowhere, so a tool without secrets stores its arguments as they are, with no walk.
    Computed once per tool."""
    plan = _Reader(schema).read(schema)
    return plan if _prune(plan) else None


class _Reader:
    def __init__(self, root: dict[str, Any]) -> None:
        self._root = root
        self._refs: dict[str, Plan] = {}

    def read(self, node: object) -> Plan:
        plan = Plan()
        self._into(plan, node)
        return plan

    def _into(self, plan: Plan, node: object) -> None:
        if not isinstance(node, dict):
            return
        if node.get("format") in SECRET_FORMATS or node.get("writeOnly") is True:
            plan.secret = True
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._ref(ref)
            if target is not None:
                plan.also.append(target)
        for key in ("anyOf", "oneOf", "allOf"):
            for choice in node.get(key) or ():
                self._into(plan, choice)
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, member in properties.items():
                slot = plan.properties.setdefault(str(name), Plan())
                if slot is not None:
                    self._into(slot, member)
        if isinstance(node.get("additionalProperties"), dict):
            plan.rest = plan.rest or Plan()
            self._into(plan.rest, node["additionalProperties"])
        prefix = node.get("prefixItems")
        if isinstance(prefix, list):
            while len(plan.prefix) < len(prefix):
                plan.prefix.append(Plan())
            for slot, member in zip(plan.prefix, prefix, strict=False):
                if slot is not None:
                    self._into(slot, member)
        if isinstance(node.get("items"), dict):
            plan.items = plan.items or Plan()
            self._into(plan.items, node["items"])

    def _ref(self, ref: str) -> Plan | None:
        """The plan of a local ``$ref``'s target, made once (a recursive type refers to itself)."""
        known = self._refs.get(ref)
        if known is not None:
            return known
        if not ref.startswith("#"):
            return None  # other documents are not fetched (validation refuses them)
        found, node = pointed(self._root, ref[1:])
        if not found:
            return None
        plan = self._refs[ref] = Plan()
        self._into(plan, node)
        return plan


def _prune(root: Plan) -> bool:
    """Drop the branches holding no secret; whether ``root`` holds any (cycles allowed)."""
    plans: list[Plan] = []
    stack, seen = [root], {id(root)}
    while stack:
        plan = stack.pop()
        plans.append(plan)
        for child in plan._children():
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    holds = {id(plan) for plan in plans if plan.secret}
    changed = True
    while changed:  # a plan holds a secret when one of its children does
        changed = False
        for plan in plans:
            if id(plan) not in holds and any(id(child) in holds for child in plan._children()):
                holds.add(id(plan))
                changed = True
    for plan in plans:
        # a member holding no secret stays named (None): ``additionalProperties`` is for the others
        plan.properties = {
            name: member if member is not None and id(member) in holds else None
            for name, member in plan.properties.items()
        }
        plan.rest = plan.rest if plan.rest is not None and id(plan.rest) in holds else None
        plan.items = plan.items if plan.items is not None and id(plan.items) in holds else None
        plan.prefix = [slot if slot is not None and id(slot) in holds else None for slot in plan.prefix]
        plan.also = [other for other in plan.also if id(other) in holds]
    return id(root) in holds


def stored_arguments(arguments: dict[str, Any], secrets: Plan | None) -> dict[str, Any]:
    """``arguments`` as stored: each value ``secrets`` (from :func:`secret_plan`) marks is replaced
    by :data:`REDACTED` at whatever depth (names, keys and the other values stay; a null stays
    null). The arguments themselves are not changed (a copy is made where something is replaced)."""
    if secrets is None:
        return arguments
    stored = _redact(arguments, [secrets], 0)
    return stored if isinstance(stored, dict) else arguments


_DEPTH = 256
"""Past this depth a value is replaced whole (a client's JSON is bounded far below it)."""


def _closure(plans: list[Plan]) -> list[Plan]:
    """``plans`` and those they apply too (``also``), each once."""
    out: list[Plan] = []
    seen: set[int] = set()
    stack = list(plans)
    while stack:
        plan = stack.pop()
        if id(plan) not in seen:
            seen.add(id(plan))
            out.append(plan)
            stack.extend(plan.also)
    return out


def _redact(value: Any, plans: list[Plan], depth: int) -> Any:
    if value is None:
        return None
    plans = _closure(plans)
    if depth > _DEPTH or any(plan.secret for plan in plans):
        return REDACTED
    if isinstance(value, dict):
        if all(plan.rest is None and not any(plan.properties.values()) for plan in plans):
            return value
        out = {}
        for key, member in value.items():
            subs = [sub for plan in plans if (sub := plan.properties.get(key, plan.rest)) is not None]
            out[key] = _redact(member, subs, depth + 1) if subs else member
        return out
    if isinstance(value, (list, tuple)):
        if all(plan.items is None and not any(plan.prefix) for plan in plans):
            return value
        items = []
        for index, member in enumerate(value):
            subs = [
                sub
                for plan in plans
                if (sub := plan.prefix[index] if index < len(plan.prefix) else plan.items) is not None
            ]
            items.append(_redact(member, subs, depth + 1) if subs else member)
        return items
    return value


def stored_form(value: object) -> object:
    """The form a record stores a value JSON has no form for in (the ``default`` of the JSON
    writers of provenance and job records; only ``server.call`` can pass such a value).

    A dataclass or pydantic model instance becomes the dict of its fields, a field its class
    annotates ``Secret`` (``Optional[Secret]``, ``list[Secret]``... : any annotation holding the
    marking) replaced by :data:`REDACTED` (a null stays null); the other fields' values are written
    as they are (in this form again when they are such values). Any other object is written as
    its ``str()``, unless its class annotates an attribute ``Secret``: then as
    ``"[not stored: a <class> object]"``, as is a dataclass or model whose annotations cannot be
    read (a forward reference that does not resolve).

    .. versionchanged:: 1.0
       A dataclass or model instance was written as its ``str()``, ``Secret`` fields included.
    """
    kind: type[Any] = type(value)
    try:
        secret = _secret_fields(kind)
    except TypeError:  # a class whose metaclass makes it unhashable: its annotations go unread
        secret = None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [field.name for field in dataclasses.fields(value)]
    elif isinstance(getattr(kind, "model_fields", None), dict):  # a pydantic model (v2)
        names = list(kind.model_fields)
    else:
        return _unstored(kind) if secret else str(value)  # (annotations unread: its str(), as before)
    if secret is None:
        return _unstored(kind)
    form: dict[str, Any] = {}
    for name in names:
        member = getattr(value, name, None)
        form[name] = REDACTED if name in secret and member is not None else member
    return form


def _unstored(kind: type) -> str:
    return f"[not stored: a {kind.__qualname__} object]"


_read_classes: dict[type[Any], frozenset[str] | None] = {}
"""What :func:`_secret_fields` found, by class (at most :data:`_READ_CLASSES`; emptied when full)."""
_READ_CLASSES = 256


def _secret_fields(kind: type[Any]) -> frozenset[str] | None:
    """The attributes ``kind`` (and its bases) annotate with a secret marking; None when its
    annotations cannot be read."""
    if kind in _read_classes:
        return _read_classes[kind]
    try:
        hints = typing.get_type_hints(kind, include_extras=True)
    except Exception:  # an unresolvable forward reference, a broken annotation
        found = None
    else:
        found = frozenset(name for name, hint in hints.items() if _marks_secret(hint, 0))
    if len(_read_classes) >= _READ_CLASSES:
        _read_classes.clear()
    _read_classes[kind] = found
    return found


def _marks_secret(hint: object, depth: int) -> bool:
    """Whether an annotation holds a secret marking anywhere (``Secret``, ``Secret | None``,
    ``list[Secret]``, ``dict[str, Secret]``)."""
    for meta in getattr(hint, "__metadata__", ()):
        if isinstance(meta, Mapping) and (meta.get("format") in SECRET_FORMATS or meta.get("writeOnly") is True):
            return True
    return depth < _DEPTH and any(_marks_secret(arg, depth + 1) for arg in typing.get_args(hint))
