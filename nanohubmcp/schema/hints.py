"""Resolve annotations and type-comment expressions to Python types, never failing.

Owns the lenient side of ``typing.get_type_hints``: when a whole resolution fails (an
undefined forward reference, a class defined inside a function, a typo) each annotation is
tried on its own, and whatever still cannot be resolved becomes :data:`typing.Any` (the
schema then accepts anything). It does not map types to schemas (see ``mapping``).
"""

from __future__ import annotations

import builtins
import importlib
import logging
import sys
import typing
from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

_TYPING_NAMES: dict[str, Any] = {
    name: getattr(typing, name) for name in typing.__all__ if not name.startswith("_")
}
"""``List``, ``Optional``, … usable in type comments even when the module never imported them."""


class LazyClass:
    """A class known by its module and name, imported only when a name lookup needs it.

    ``describe_function(context_types=...)`` takes one in place of a class whose module a program
    may never load (the server's ``Context``): a string annotation or type comment naming it
    (``ctx: "Context"`` with the import under ``TYPE_CHECKING``) imports the module then, and a
    type is not that class while its module is not loaded (no subclass of it can exist before).

    Args:
        module: the dotted module name, e.g. ``"nanohubmcp.server.calls.context"``.
        name: the class's name in that module, e.g. ``"Context"``; also the name string
            annotations use.
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __repr__(self) -> str:
        return f"LazyClass({self.module!r}, {self.name!r})"

    def loaded(self) -> type | None:
        """The class when its module is loaded, else None (nothing is imported)."""
        module = sys.modules.get(self.module)
        found = getattr(module, self.name, None) if module is not None else None
        return found if isinstance(found, type) else None

    def load(self) -> type:
        """The class, importing its module when not yet loaded."""
        found = getattr(importlib.import_module(self.module), self.name)
        assert isinstance(found, type), f"{self.module}.{self.name} is not a class"
        return found


ClassOrLazy = type | LazyClass
"""A class, or a :class:`LazyClass` standing for one."""


class ClassNames(Mapping[str, Any]):
    """``{class name: class}`` over classes and :class:`LazyClass` es, a lazy one imported when looked up.

    The fallback names :func:`evaluate` and :func:`type_hints` take as ``extra``: only a string
    annotation that names a lazy class (and that the function's module does not define) imports it.
    """

    __slots__ = ("_by_name",)

    def __init__(self, classes: Iterable[ClassOrLazy]) -> None:
        self._by_name = {c.name if isinstance(c, LazyClass) else c.__name__: c for c in classes}

    def __getitem__(self, name: str) -> Any:
        found = self._by_name[name]
        return found.load() if isinstance(found, LazyClass) else found

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)


def loaded_classes(classes: Iterable[ClassOrLazy]) -> tuple[type, ...]:
    """The classes of ``classes`` that exist now: each class, and each lazy one whose module is loaded."""
    found = (c.loaded() if isinstance(c, LazyClass) else c for c in classes)
    return tuple(c for c in found if c is not None)


def evaluate(expr: str, globalns: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> Any:
    """Evaluate a type expression written as text; :data:`typing.Any` when it cannot be.

    Names are looked up in ``globalns`` first, then ``extra``, then the public names of
    :mod:`typing`, then builtins. ``typing.``-qualified names work when ``typing`` is importable
    from ``globalns`` or is one of the fallbacks.

    Args:
        expr: e.g. ``"List[float]"`` or ``"Context"``.
        globalns: the namespace of the module that wrote the expression.
        extra: further fallback names (e.g. the server's context types); looked up by name, never
            copied, so a :class:`ClassNames` imports only the lazy class an expression names.
    """
    # ChainMap writes only to its first map: ``extra`` is only read (typeshed asks for mutable maps).
    fallback = typing.cast("MutableMapping[str, Any]", extra or {})
    scope: ChainMap[str, Any] = ChainMap(dict(globalns), fallback, _TYPING_NAMES, {"typing": typing})
    try:
        # The text comes from the user's own source code, which is running in this process anyway.
        value = eval(expr, {"__builtins__": builtins}, scope)
    except Exception as exc:  # any failure means "unknown type": fall back to Any
        log.debug("cannot resolve type %r: %s", expr, exc)
        return Any
    return _resolve_nested(value, globalns)


def _resolve_nested(value: object, globalns: Mapping[str, Any]) -> Any:
    """Resolve forward references nested in an evaluated expression (``List["Point"]``)."""
    holder = type("_Holder", (), {"__annotations__": {"x": value}, "__module__": __name__})
    try:
        return typing.get_type_hints(holder, globalns=dict(globalns), include_extras=True)["x"]
    except Exception:  # unresolved inner names: keep the outer type, inner refs map to Any
        return value


def type_hints(obj: object, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return ``obj``'s annotations resolved to types, one by one when needed.

    Args:
        obj: a function, a dataclass, a TypedDict or a NamedTuple class.
        extra: fallback names for string annotations (see :func:`evaluate`).

    Returns:
        ``{name: type}``; unresolved names map to :data:`typing.Any`. Annotations wrapped
        in ``Annotated`` keep their metadata (``include_extras``).
    """
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as exc:  # NameError, TypeError, SyntaxError from a bad string annotation
        log.debug("get_type_hints(%r) failed (%s); resolving one by one", obj, exc)
    globalns = _globals_of(obj)
    raw: dict[str, Any] = {}
    owners = reversed(obj.__mro__) if isinstance(obj, type) else [obj]
    for owner in owners:
        raw.update(getattr(owner, "__annotations__", None) or {})
    return {
        name: evaluate(ann, globalns, extra) if isinstance(ann, str) else ann for name, ann in raw.items()
    }


def _globals_of(obj: object) -> dict[str, Any]:
    if isinstance(obj, type):
        module = sys.modules.get(obj.__module__)
        return dict(vars(module)) if module is not None else {}
    return dict(getattr(obj, "__globals__", None) or {})
