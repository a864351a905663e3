"""What a cached tool's result depends on besides its arguments: the code and values its function
reaches by global name.

A tool's own source is not enough to know its result: the physics is often in a helper
function, a parameter in a module-level constant, and in a notebook both live in other cells.
:func:`reach_hash` follows the global names of the tool's code (and of the code nested in it)
through the user's own functions and classes, transitively, and hashes what it finds:

- a function or class defined in the user's code (``__main__``, a notebook cell, a module outside
  the standard library and ``site-packages``): its source text (else its compiled code) and the
  values of its defaults, and what *its* global names reach;
- the values a function's closure captured, a bound method's instance attributes and a class's
  plain class attributes, each as below;
- a module of the user's own (by the same rule): the attributes the code reads from it, followed
  by name (``mylib.g(x)``: ``g`` taken as above; ``pkg.sub.h``: through the submodule; ``config.SCALE``:
  its value) and bound like global names; a module used as a whole (passed on, ``getattr(mod, name)``,
  captured by a closure) counts by the SHA-256 of its file (a file over
  :data:`.code_modules.MAX_SOURCE_BYTES` by its size and modification time), and by the names read
  from it as well; so does a module of the user's that the code imports itself (``import mylib``
  inside the function), found on the import path without importing it;
- a value of a plain type (``None``, bool, int, float, complex, str, bytes, and tuples, lists,
  dicts, sets of those, up to :data:`MAX_VALUE_CHARS` of ``repr``): its ``repr``;
- anything else (a library's function or module, an open file, an instance): its type's
  qualified name only — a library's version is the record's business, not the key's.

At most :data:`MAX_REACHED` objects are followed. The hash is kept with the identity of every
object it read: a call checks those identities (a few dictionary reads) and hashes again only
when a name was bound to another object — a cell run again, a constant assigned anew. What it
cannot see: a mutable value changed in place (``PARAMS["dt"] = 1e-3``), a file the tool reads,
the environment. For those a tool sets ``cache_ttl`` or its owner clears the cache.

Owns the reach; the cache key itself is :mod:`.cache_layer`'s.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Callable, Iterator
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import Any

from .code_modules import (
    WHOLE,
    Path,
    attribute_reads,
    codes,
    file_digest,
    imported_files,
    is_users_module,
    outside_libraries,
)

MAX_REACHED = 256
"""Objects followed from one tool at most (a tool reaching more is hashed by the first ones)."""
MAX_VALUE_CHARS = 65536
"""A plain value whose ``repr`` is longer is hashed by its type and length only."""
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_CONTAINERS = (tuple, list, dict, set, frozenset)

Binding = tuple[dict[str, Any], str, Any]
"""A global name read by reached code: (the globals it was read from, the name, what it was bound to)."""


REACH = "cache_reach"
"""``Tool.extra`` key: the last reach computed for the tool (its bindings and digest)."""


class _Kept:
    __slots__ = ("bindings", "digest")

    def __init__(self, bindings: tuple[Binding, ...], digest: str) -> None:
        self.bindings = bindings
        self.digest = digest


def reach_hash(tool: Any) -> str:
    """A SHA-256 hex digest of what ``tool.fn`` reaches by global name (see the module's
    docstring); the same for the same code and values, whatever process computes it. Cheap when
    nothing was rebound since the tool's last call: the identities of the names read are compared."""
    kept = tool.extra.get(REACH)
    if kept is not None and _still_bound(kept.bindings):
        return str(kept.digest)
    kept = _walk(inspect.unwrap(tool.fn))
    tool.extra[REACH] = kept  # one assignment: a racing call computes the same or a newer reach
    return str(kept.digest)


def _still_bound(bindings: tuple[Binding, ...]) -> bool:
    for namespace, name, value in bindings:  # noqa: SIM110 - a loop: no generator on each cached call
        if namespace.get(name, _MISSING) is not value:
            return False
    return True


_MISSING = object()


def _walk(fn: Callable[..., Any]) -> _Kept:
    digest = hashlib.sha256()
    bindings: list[Binding] = []
    seen: set[int] = {id(fn)}
    queue: list[Any] = [fn]
    reached = 0

    def take(label: str, value: Any, paths: frozenset[Path] = WHOLE) -> None:
        digest.update(f"\0{label}=".encode())
        if isinstance(value, (_PLAIN, _CONTAINERS)):
            digest.update(_plain(value))
        elif _is_users(value):
            digest.update(_code_text(value))
            if id(value) not in seen:
                seen.add(id(value))
                queue.append(value)
        elif is_users_module(value):
            follow(label, value, paths)
        else:
            kind = type(value)
            digest.update(f"{kind.__module__}.{kind.__qualname__}".encode())

    def follow(label: str, module: ModuleType, paths: frozenset[Path]) -> None:
        """The attributes read from a user's module (``paths``: the names read after it; ``()``: itself)."""
        nonlocal reached
        namespace = vars(module)
        digest.update(f"module {module.__name__}".encode())
        if () in paths:  # used as a whole: its file, and a reload (a new __spec__) is a change
            digest.update(file_digest(getattr(module, "__file__", None)))
            bindings.append((namespace, "__spec__", namespace.get("__spec__", _MISSING)))
        for name in sorted({path[0] for path in paths if path}):
            if reached >= MAX_REACHED:
                return
            reached += 1
            value = namespace.get(name, _MISSING)
            bindings.append((namespace, name, value))  # rebound by a reload or an assignment: a change
            if value is not _MISSING:
                take(f"{label}.{name}", value, frozenset(path[1:] for path in paths if path and path[0] == name))

    while queue and reached < MAX_REACHED:
        obj = queue.pop(0)
        reached += 1
        for label, value in _state(obj):
            take(label, value)
        for function in _functions_of(obj):
            for name, path in imported_files(function):
                if reached >= MAX_REACHED:
                    break
                reached += 1
                digest.update(f"\0import {name}=".encode() + file_digest(path))
                loaded = sys.modules.get(name, _MISSING)
                bindings.append((sys.modules, name, loaded))  # imported later, or anew: read again
                if isinstance(loaded, ModuleType):
                    bindings.append((vars(loaded), "__spec__", vars(loaded).get("__spec__", _MISSING)))  # a reload
        for namespace, name, code in _global_names(obj):
            value = namespace.get(name, _MISSING)
            bindings.append((namespace, name, value))  # unbound too: a later global of that name is a change
            if value is not _MISSING:  # else a builtin, an attribute's name, or not yet defined
                take(name, value, attribute_reads(code).get(name, WHOLE) if isinstance(value, ModuleType) else WHOLE)
    return _Kept(tuple(bindings), digest.hexdigest())


def _state(obj: Any) -> list[tuple[str, Any]]:
    """What a function holds besides its code: the values its closure captured (a factory's
    ``k``), a bound method's instance attributes, a class's plain class attributes."""
    found: list[tuple[str, Any]] = []
    if isinstance(obj, MethodType):
        attributes = getattr(obj.__self__, "__dict__", None)
        if isinstance(attributes, dict):
            found.extend((f"self.{key}", value) for key, value in sorted(attributes.items(), key=lambda kv: str(kv[0])))
        obj = obj.__func__
    if isinstance(obj, FunctionType) and obj.__closure__:
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__, strict=False):
            try:
                found.append((f"cell.{name}", cell.cell_contents))
            except ValueError:  # a cell not filled yet
                continue
    if isinstance(obj, type):
        found.extend((f"class.{key}", value) for key, value in vars(obj).items()
                     if isinstance(value, (_PLAIN, _CONTAINERS)) and not key.startswith("__"))
    return found


def _global_names(obj: Any) -> Iterator[tuple[dict[str, Any], str, CodeType]]:
    """(globals, name, code) for each global name the code of ``obj`` (a function, a class's methods) reads."""
    for function in _functions_of(obj):
        namespace = function.__globals__
        for code in codes(function.__code__):
            for name in code.co_names:
                yield namespace, name, code


def _functions_of(obj: Any) -> list[FunctionType]:
    if isinstance(obj, MethodType):
        obj = obj.__func__
    if isinstance(obj, FunctionType):
        return [obj]
    if isinstance(obj, type):
        found = []
        for member in vars(obj).values():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if isinstance(member, FunctionType):
                found.append(member)
        return found
    return []


def _plain(value: Any) -> bytes:
    left = [MAX_VALUE_CHARS]
    text = _plain_repr(value, left, 0)
    if text is None:
        return f"<{type(value).__qualname__}>".encode()
    return text.encode("utf-8", "surrogatepass")


MAX_DEPTH = 32
"""Containers nested deeper (or holding themselves) are not plain."""


def _plain_repr(value: Any, left: list[int], depth: int) -> str | None:
    """``repr`` of a plain value, sets and dicts in a stable order; None when not plain, nested
    deeper than :data:`MAX_DEPTH` or longer than ``left[0]`` characters (spent as it goes)."""
    if isinstance(value, _PLAIN):
        text = repr(value)
    elif depth >= MAX_DEPTH:
        return None
    elif isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            pair_key, pair_value = _plain_repr(key, left, depth + 1), _plain_repr(item, left, depth + 1)
            if pair_key is None or pair_value is None:
                return None
            pairs.append(f"{pair_key}:{pair_value}")
        text = "{" + ",".join(sorted(pairs)) + "}"
    elif isinstance(value, _CONTAINERS):
        parts = []
        for item in value:
            part = _plain_repr(item, left, depth + 1)
            if part is None:
                return None
            parts.append(part)
        if isinstance(value, (set, frozenset)):
            parts.sort()
        text = type(value).__name__ + "(" + ",".join(parts) + ")"
    else:
        return None
    left[0] -= len(text)
    return text if left[0] >= 0 else None


def _is_users(value: Any) -> bool:
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


def _code_bytes(code: CodeType) -> bytes:
    """What compiled code does, without where it was compiled (marshal's output is not stable:
    it depends on which strings happen to be shared)."""
    parts = [code.co_code, repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)).encode()]
    for const in code.co_consts:
        parts.append(_code_bytes(const) if isinstance(const, CodeType) else repr(const).encode())
    return b"\0".join(parts)


def _code_text(value: Any) -> bytes:
    """The source of a user's function or class (its code's bytes where the source is not to be had),
    with its defaults."""
    functions = _functions_of(value)
    try:
        text = inspect.getsource(value).encode()
    except (OSError, TypeError):
        text = b"".join(_code_bytes(f.__code__) for f in functions)
    for function in functions:
        defaults = (function.__defaults__ or ()) + tuple((function.__kwdefaults__ or {}).items())
        if defaults:
            text += _plain(defaults)
    return text
