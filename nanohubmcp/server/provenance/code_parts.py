"""What a value reached from a cached tool's code holds that the walk follows further: which
functions and classes are the user's own, the functions of a class, what an instance holds
(:func:`attributes`: its ``__dict__`` and its ``__slots__``), and the parts of a value
(:func:`parts`) — a closure's captured values and a function's defaults, a class's attributes and
bases, an instance's class, a bound method's instance and class, a ``functools.partial``'s function
and arguments, a wrapper's ``__wrapped__`` (``functools.lru_cache``, ``functools.wraps``).

Serves :mod:`.code_reach`, which owns the walk, what is hashed and what is bound.
"""

from __future__ import annotations

import sys
from functools import cached_property, partial, partialmethod
from types import FunctionType, MemberDescriptorType, MethodType, SimpleNamespace
from typing import Any

from .code_modules import outside_libraries

__all__ = ["SlotValues", "attributes", "functions_of", "has_parts", "is_namespace", "is_users_code", "parts",
           "slots_of"]

_MACHINERY = frozenset({"_abc_impl"})
"""Class attributes that are Python's own machinery, not the class's data (an ABC's registry: not picklable)."""


def is_users_code(value: Any) -> bool:
    """A function or class of the user's own code (not the standard library's or an installed package's)."""
    if isinstance(value, MethodType):
        value = value.__func__
    if not isinstance(value, (FunctionType, type)):
        return False
    name = getattr(value, "__module__", "") or ""
    if name.partition(".")[0] == "nanohubmcp":
        return False  # ours (a Rappture or Sim2L tool's runner): versioned with the package
    module = sys.modules.get(name)
    if module is None or module.__name__ == "__main__":
        return True
    path = getattr(module, "__file__", None)
    if not path:
        return module.__name__ not in sys.builtin_module_names
    return outside_libraries(path)


def functions_of(obj: Any) -> list[FunctionType]:
    """The functions whose code ``obj`` runs: a function's own, a bound method's, a class's methods
    (static, class, properties and cached properties too); none for any other value."""
    if isinstance(obj, MethodType):
        obj = obj.__func__
    if isinstance(obj, FunctionType):
        return [obj]
    if isinstance(obj, type):
        found: list[FunctionType] = []
        for member in vars(obj).values():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                found.extend(f for f in (member.fset, member.fdel) if isinstance(f, FunctionType))
                member = member.fget
            elif isinstance(member, cached_property):
                member = member.func
            if isinstance(member, FunctionType):
                found.append(member)
        return found
    return []


def is_namespace(value: Any) -> bool:
    """Whether ``value`` is a bare attribute holder of the standard library, used as a config object the
    way an instance of the user's own class is: a ``types.SimpleNamespace``, an ``argparse.Namespace``."""
    kind = type(value)
    return kind is SimpleNamespace or (kind.__module__ == "argparse" and kind.__qualname__ == "Namespace")


def has_parts(value: Any) -> bool:
    """Whether a value that is not the user's function, class or module holds something to follow:
    a partial, an instance of a user's class or a namespace (:func:`is_namespace`), a callable with a
    ``__wrapped__`` (an ``lru_cache``)."""
    if isinstance(value, (partial, partialmethod)) or is_users_code(type(value)) or is_namespace(value):
        return True
    return callable(value) and _wrapped(value) is not None


def slots_of(kind: type) -> dict[str, MemberDescriptorType]:
    """``{name: member descriptor}`` of each slot an instance of ``kind`` has, from every class of its MRO
    that declares ``__slots__`` (a ``@dataclass(slots=True)`` too); a private name as stored (``_C__x``)."""
    found: dict[str, MemberDescriptorType] = {}
    for cls in kind.__mro__:
        declared = vars(cls)
        if "__slots__" in declared:
            for name, member in declared.items():
                if isinstance(member, MemberDescriptorType):
                    found.setdefault(name, member)
    return found


class SlotValues:
    """The slots of one instance read as a namespace is (``get(name, default)``: the slot's value now, or
    ``default`` while it is not set), so that a walk binds them as it binds names (:mod:`.code_reach`)."""

    __slots__ = ("instance", "members")

    def __init__(self, instance: Any, members: dict[str, MemberDescriptorType]) -> None:
        self.instance = instance
        self.members = members

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self.members[name].__get__(self.instance)
        except AttributeError:  # not set (or deleted)
            return default


def attributes(instance: Any) -> list[tuple[str, Any]]:
    """(name, value) of what ``instance`` holds, sorted by name: its ``__dict__``'s items and the values of
    its slots (:func:`slots_of`; a slot never set has none)."""
    found: dict[str, Any] = {}
    own = getattr(instance, "__dict__", None)
    if isinstance(own, dict):
        found.update((str(key), value) for key, value in own.items())
    for name, member in slots_of(type(instance)).items():
        try:
            found[name] = member.__get__(instance)
        except AttributeError:  # not set
            continue
    return sorted(found.items())


def parts(obj: Any) -> list[tuple[str, Any]]:
    """(label, value) for each part of ``obj`` the walk takes as it takes a global name's value.

    - a function: the values its closure captured (a factory's ``k``), its defaults (``_m=P``: an instance
      of the user's class is followed as a global name's value), its ``__wrapped__``;
    - a bound method: its instance's attributes (:func:`attributes`: ``__dict__`` and slots) and class (a
      class method: the class), then its function's;
    - a class: its bases of the user's own, then each class attribute that is not a method (data:
      ``coeffs = np.loadtxt(...)``; methods count by their code, :func:`functions_of`), then its methods'
      defaults;
    - a ``functools.partial`` (or ``partialmethod``): its function, arguments and keywords;
    - any other value: its class when that is the user's (an instance: its methods' code and what they
      reach), and what it wraps (``__wrapped__``: a ``functools.lru_cache``).
    """
    found: list[tuple[str, Any]] = []
    if isinstance(obj, MethodType):
        owner = obj.__self__
        if isinstance(owner, type):
            found.append(("cls", owner))
        else:
            found.extend((f"self.{key}", value) for key, value in attributes(owner))
            if is_users_code(type(owner)):
                found.append(("self.__class__", type(owner)))
        obj = obj.__func__
    if isinstance(obj, FunctionType):
        if obj.__closure__:
            for name, cell in zip(obj.__code__.co_freevars, obj.__closure__, strict=False):
                try:
                    found.append((f"cell.{name}", cell.cell_contents))
                except ValueError:  # a cell not filled yet
                    continue
        found.extend(_defaults(obj))
        wrapped = obj.__dict__.get("__wrapped__")
        if wrapped is not None:
            found.append(("__wrapped__", wrapped))
        return found
    if isinstance(obj, type):
        found.extend((f"base.{base.__qualname__}", base) for base in obj.__bases__ if is_users_code(base))
        for key, member in vars(obj).items():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__  # a static lru_cache: followed as a value, its function's code as code
            if _is_data(key, member):
                found.append((f"class.{key}", member))
        for function in functions_of(obj):  # a method's defaults (``def run(self, x, _m=P)``)
            found.extend((f"{function.__name__}.{label}", value) for label, value in _defaults(function))
        return found
    if isinstance(obj, (partial, partialmethod)):
        found.append(("func", obj.func))
        found.extend((f"args[{i}]", arg) for i, arg in enumerate(obj.args))
        found.extend((f"keywords.{key}", value) for key, value in sorted(obj.keywords.items()))
        return found
    kind = type(obj)
    if is_users_code(kind):
        found.append(("__class__", kind))
    wrapped = _wrapped(obj) if callable(obj) else None
    if wrapped is not None:
        found.append(("__wrapped__", wrapped))
    return found


def _defaults(function: FunctionType) -> list[tuple[str, Any]]:
    """(label, value) of a function's default values, positional then keyword-only (by name)."""
    found = [(f"default[{i}]", value) for i, value in enumerate(function.__defaults__ or ())]
    found.extend((f"default.{key}", value) for key, value in sorted((function.__kwdefaults__ or {}).items()))
    return found


def _is_data(key: str, member: Any) -> bool:
    """A class attribute that counts as a value: not a dunder, not machinery, not a method (its code counts)."""
    if (key.startswith("__") and key.endswith("__")) or key in _MACHINERY:
        return False  # (a slot's descriptor: its value is each instance's, counted with the instance)
    return not isinstance(member, (FunctionType, property, cached_property, MemberDescriptorType))


def _wrapped(value: Any) -> Any:
    """A value's own ``__wrapped__`` (in its instance dictionary, never through ``__getattr__``), or None."""
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except Exception:  # no instance dictionary (or a type whose lookup raises): nothing wrapped
        return None
    return attributes.get("__wrapped__") if isinstance(attributes, dict) else None
