"""What a cached tool's result depends on besides its arguments: the code and values its function
reaches by global name.

A tool's own source is not enough to know its result: the physics is often in a helper
function, a parameter in a module-level constant, and in a notebook both live in other cells.
:func:`reach_hash` follows the global names of the tool's code (and of the code nested in it)
through the user's own functions and classes, transitively, and hashes what it finds:

- a function or class defined in the user's code (``__main__``, a notebook cell, a module outside
  the standard library and ``site-packages``): its compiled code — what runs, not its file's text, which
  may have been edited since it was loaded — with the code nested in it, the values of its defaults (a
  class: its bases' names and each method's code), and what *its* global names reach; the tool's own
  function's code too. A function given new code in place (``%autoreload`` does: ``f.__code__ = ...``)
  is a change, as a name bound anew is;
- what such a value holds (:func:`.code_parts.parts`), each as below: the values a function's closure
  captured, a bound method's instance attributes and class, a class's bases of the user's own and its
  attributes other than methods (``coeffs = np.loadtxt(...)``: its data; an attribute assigned anew
  is a change, as a global name bound anew);
- an instance of a user's class (``M = Model()``): its pickle, as below, and its class, as above (what
  its methods and properties run and reach), its attributes bound as global names are, and so the
  instances it holds in its attributes (``M.solver``; a ``SimpleNamespace`` in another), at any depth
  within :data:`MAX_REACHED`; a ``functools.partial``: its function, arguments and
  keywords, each as a global name's value; a wrapper holding ``__wrapped__`` (``functools.lru_cache``):
  its pickle and the function it wraps;
- a module of the user's own (by the same rule): the attributes the code reads from it, followed
  by name (``mylib.g(x)``: ``g`` taken as above; ``pkg.sub.h``: through the submodule; ``config.SCALE``:
  its value) and bound like global names; a module used as a whole (passed on, ``getattr(mod, name)``,
  captured by a closure) counts by what it holds — the code of its functions and classes, its plain
  values, the type of anything else — and by the SHA-256 of its file as first read after the module
  was loaded (a file over :data:`.code_modules.MAX_SOURCE_BYTES` by its size and modification time;
  kept until a reload, so an edit not loaded yet changes nothing), and by the names read from it as
  well; a module of the user's that the code imports itself (``import mylib`` inside the function)
  counts by its file: loaded, as first read after it was loaded; not loaded yet, as it is on the
  import path, found without importing it;
- a value of a plain type (``None``, bool, int, float, complex, str, bytes, and tuples, lists,
  dicts, sets of those, up to :data:`.reached_bytes.MAX_VALUE_CHARS` of ``repr``): its ``repr``;
- any other value — a numpy array, a pandas table, an instance of the user's class or of a
  library's (a ``Fraction``, a ``datetime``), a longer plain value — by what it holds: the SHA-256
  of its pickle (protocol 5, its out-of-band buffers hashed in place, so an array's data is not
  copied); a library's function or class pickles as its qualified name, a module counts by its name;
- a value that cannot be pickled (an open file, a lock, a client of a service): itself, for this
  process only — the key holds it (so its identity is never reused) and a process-wide random
  value, so that results computed with it are never reused by another process or after a restart.

At most :data:`MAX_REACHED` objects are followed; a walk stopped there says so
(:attr:`Reach.complete`), and its digest is never a key. The hash is kept with the identity of every
object it read: a call checks those identities (a few dictionary reads) and hashes again only
when a name was bound to another object — a cell run again, a constant assigned anew. What it
cannot see: a mutable value changed in place (``PARAMS["dt"] = 1e-3``), a file the tool reads,
the environment. For those a tool sets ``cache_ttl`` or its owner clears the cache.

Owns the reach; the bytes each object counts as are :mod:`.reached_bytes`', the cache key itself
:mod:`.cache_layer`'s.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Callable, Iterator, Sized
from functools import partial, partialmethod
from types import CodeType, FunctionType, ModuleType
from typing import Any, Protocol

from .code_modules import (
    WHOLE,
    Path,
    attribute_reads,
    codes,
    file_digest,
    imported_files,
    is_users_module,
)
from .code_parts import SlotValues, attributes, functions_of, has_parts, is_users_code, parts, slots_of
from .reached_bytes import CONTAINERS, PLAIN, code_text, is_dunder, loaded_file, module_text, opaque_text, plain_text

MAX_REACHED = 2048
"""Objects followed from one tool at most (functions, classes and values followed, names read from
modules, modules imported in a body); a tool reaching more gets an incomplete reach
(:attr:`Reach.complete` false), which is no key: its calls are not cached."""


class Names(Protocol):
    """Where a binding's name is looked up: a module's globals, a class's or an instance's ``__dict__``,
    an instance's slots (:class:`.code_parts.SlotValues`)."""

    def get(self, key: str, default: Any, /) -> Any: ...


Binding = tuple[Names, str, Any]
"""A name read by reached code: (the globals, class, instance or slots it was read from, the name, what
it was bound to, :data:`_MISSING` when unbound)."""
Size = tuple[Sized, int]
"""A namespace whose every name counts (a class's, an instance's, a module used as a whole) with how many
names it held: a name it did not hold, set since (``m.scale = 5`` over a class default), is a change."""
Compiled = tuple[FunctionType, CodeType]
"""A user's function whose code the reach hashed, with the code it had (IPython's ``%autoreload``
gives a function reloaded the new code in place: ``f.__code__ = ...``, the name still bound to ``f``)."""


REACH = "cache_reach"
"""``Tool.extra`` key: the last reach computed for the tool (its bindings and digest)."""


class Reach:
    """What a tool's code reached when it was walked: its ``digest`` (the cache key's part), the
    global names read with the objects they were bound to, and the functions hashed with their code."""

    __slots__ = ("bindings", "compiled", "complete", "digest", "held", "sizes")

    def __init__(self, bindings: tuple[Binding, ...], digest: str, held: tuple[Any, ...] = (),
                 compiled: tuple[Compiled, ...] = (), *, complete: bool = True, sizes: tuple[Size, ...] = ()) -> None:
        self.bindings = bindings
        self.sizes = sizes
        """Namespaces each of whose names was bound, with their sizes then: with the bindings, a name added
        is seen as one bound anew is (the same names bound to the same objects, and as many of them)."""
        self.compiled = compiled
        self.complete = complete
        """False when the walk stopped at :data:`MAX_REACHED`: the digest leaves out what lay beyond, so
        it must never key a result."""
        self.digest = digest
        """SHA-256 hex digest of what was reached (see the module's docstring)."""
        self.held = held
        """The values that count by identity (:func:`.reached_bytes.opaque_text`): held, so that no other object
        takes it."""

    def still_bound(self) -> bool:
        """Whether every name read is still bound to the object it was bound to when walked (no name set since
        in a namespace each of whose names counts), and every function hashed still has its code (identities
        only: a value changed in place is not seen, nor a name bound away and back again)."""
        return _still_bound(self.bindings, self.compiled, self.sizes)


def reach(tool: Any) -> Reach:
    """What ``tool.fn`` reaches by global name now: the tool's last reach while all its names are
    still bound to the same objects (the identities compared: cheap), else walked anew."""
    kept: Reach | None = tool.extra.get(REACH)
    if kept is not None and _still_bound(kept.bindings, kept.compiled, kept.sizes):
        return kept
    kept = _walk(inspect.unwrap(tool.fn))
    tool.extra[REACH] = kept  # one assignment: a racing call computes the same or a newer reach
    return kept


def reached_as(tool: Any, earlier: Reach) -> bool:
    """Whether ``tool.fn`` reaches now what it reached as ``earlier`` (a call's reach, taken when its
    key was made): every name bound to the same object (identities compared: nothing hashed), else
    the same digest walked anew — a module the call imported itself, a name bound to equal values.
    The new walk is kept as the tool's reach: its next call would walk anyway."""
    return earlier.still_bound() or reach(tool).digest == earlier.digest


def reach_hash(tool: Any) -> str:
    """A SHA-256 hex digest of what ``tool.fn`` reaches by global name (see the module's
    docstring); the same for the same code and values, whatever process computes it. Cheap when
    nothing was rebound since the tool's last call: the identities of the names read are compared."""
    return reach(tool).digest


def _still_bound(bindings: tuple[Binding, ...], compiled: tuple[Compiled, ...], sizes: tuple[Size, ...]) -> bool:
    # Loops, not all(...): no generator on each cached call.
    for namespace, name, value in bindings:
        if namespace.get(name, _MISSING) is not value:
            return False
    for names, size in sizes:  # (each name it held is still bound: as many means no name added)
        if len(names) != size:
            return False
    for function, code in compiled:  # noqa: SIM110 - see above
        if function.__code__ is not code:
            return False
    return True


_MISSING = object()


def _instance(obj: Any) -> Any:
    """The instance ``obj`` is (or a bound method of which ``obj`` is), whose attributes count as a module's
    globals do; None for a function, module, class or ``partial`` (counted by their code and parts)."""
    if inspect.ismethod(obj):
        obj = obj.__self__
    if isinstance(obj, (type, FunctionType, ModuleType, partial, partialmethod)):
        return None
    return obj


def _instance_names(instance: Any) -> tuple[dict[str, Any] | None, SlotValues | None]:
    """Where an instance's attributes are looked up: its ``__dict__`` (None without one) and its slots
    (None without any)."""
    own = getattr(instance, "__dict__", None)
    slots = slots_of(type(instance))
    return (own if isinstance(own, dict) else None), (SlotValues(instance, slots) if slots else None)


def _walk(fn: Callable[..., Any]) -> Reach:
    digest = hashlib.sha256()
    bindings: list[Binding] = []
    sizes: list[Size] = []
    compiled: list[Compiled] = []
    held: list[Any] = []
    by_identity: set[int] = set()  # followed values with no pickle: counted by what they hold
    seen: set[int] = {id(fn)}
    queue: list[Any] = [fn]
    reached = 0
    cut = False  # the bound was met with more to follow

    if is_users_code(fn):  # what runs: its file's text may be newer than the code loaded from it
        digest.update(b"\0code=" + code_text(fn))
        compiled.extend((function, function.__code__) for function in functions_of(fn))

    def take(label: str, value: Any, paths: frozenset[Path] = WHOLE) -> None:
        digest.update(f"\0{label}=".encode())
        if isinstance(value, (PLAIN, CONTAINERS)):
            digest.update(plain_text(value, held))
        elif is_users_code(value):
            digest.update(code_text(value))
            compiled.extend((function, function.__code__) for function in functions_of(value))
            if id(value) not in seen:
                seen.add(id(value))
                queue.append(value)
        elif is_users_module(value):
            follow(label, value, paths)
        else:
            if not isinstance(value, (partial, partialmethod)):  # (a partial counts by its parts alone)
                counted = len(held)
                digest.update(opaque_text(value, held))
                if len(held) > counted:  # no pickle (it holds a lock, a file): what it holds counts one by one
                    by_identity.add(id(value))
            if has_parts(value) and id(value) not in seen:  # an instance's class, what a wrapper wraps
                seen.add(id(value))
                queue.append(value)

    def follow(label: str, module: ModuleType, paths: frozenset[Path]) -> None:
        """The attributes read from a user's module (``paths``: the names read after it; ``()``: itself)."""
        nonlocal reached, cut
        namespace = vars(module)
        digest.update(f"module {module.__name__}".encode())
        if () in paths:  # used as a whole: what it holds, its file as loaded; a reload (a new __spec__) is a change,
            # and so is any name of it bound anew, set or deleted (``getattr(mylib, "SCALE", 1.0)``)
            holds = dict(namespace)
            digest.update(module_text(module, holds, held))
            bindings.extend((namespace, name, value) for name, value in holds.items()
                            if name == "__spec__" or not is_dunder(name))
            sizes.append((namespace, len(holds)))
        for name in sorted({path[0] for path in paths if path}):
            if reached >= MAX_REACHED:
                cut = True
                return
            reached += 1
            value = namespace.get(name, _MISSING)
            bindings.append((namespace, name, value))  # rebound by a reload or an assignment: a change
            if value is not _MISSING:
                take(f"{label}.{name}", value, frozenset(path[1:] for path in paths if path and path[0] == name))

    def bind_instance(instance: Any) -> None:
        """An instance's attributes assigned anew (``h.arr = ...``), set over a class default (``m.scale = 5``)
        or deleted: a change, its ``__dict__``'s names and its slots alike."""
        own, slots = _instance_names(instance)
        if own is not None:
            bindings.extend((own, key, value) for key, value in list(own.items()))
            sizes.append((own, len(own)))
        if slots is not None:
            bindings.extend((slots, name, slots.get(name, _MISSING)) for name in slots.members)

    if not inspect.ismethod(fn) and _instance(fn) is not None:  # a callable object: what it holds
        for key, value in attributes(fn):  # (a bound method's: code_parts.parts)
            take(f"self.{key}", value)
    while queue and reached < MAX_REACHED:
        obj = queue.pop(0)
        reached += 1
        if isinstance(obj, type):  # an attribute assigned anew (``Model.coeffs = ...``) or new (``Sub.scale = 5``
            # over a base's, seen through the MRO): a change
            names = vars(obj)
            bindings.extend((names, key, value) for key, value in list(names.items()))
            sizes.append((names, len(names)))
        elif (instance := _instance(obj)) is not None:  # a bound method's, a callable object's, an instance's
            bind_instance(instance)
            for key, value in attributes(instance):  # an instance it holds (``M.solver``, ``CFG.inner``): its
                # attributes bound too, and so on down (``M.solver.tol = 5.0`` is a change); what it holds is in
                # the holder's pickle already, its class's code is taken with its parts
                if id(instance) in by_identity:  # no pickle held it: each value by its own (``M.k = 5.0`` is
                    take(f"held.{key}", value)  # another key, not only the same identity bound anew)
                elif has_parts(value) and id(value) not in seen:
                    seen.add(id(value))
                    digest.update(f"\0held {key}".encode())
                    queue.append(value)
        for label, value in parts(obj):
            take(label, value)
        for function in functions_of(obj):
            for name, path in imported_files(function):
                if reached >= MAX_REACHED:
                    cut = True
                    break
                reached += 1
                loaded = sys.modules.get(name, _MISSING)
                found = loaded_file(loaded) if isinstance(loaded, ModuleType) else file_digest(path)
                digest.update(f"\0import {name}=".encode() + found)
                bindings.append((sys.modules, name, loaded))  # imported later, or anew: read again
                if isinstance(loaded, ModuleType):
                    bindings.append((vars(loaded), "__spec__", vars(loaded).get("__spec__", _MISSING)))  # a reload
        for namespace, name, code in _global_names(obj):
            value = namespace.get(name, _MISSING)
            bindings.append((namespace, name, value))  # unbound too: a later global of that name is a change
            if value is not _MISSING:  # else a builtin, an attribute's name, or not yet defined
                take(name, value, attribute_reads(code).get(name, WHOLE) if isinstance(value, ModuleType) else WHOLE)
    return Reach(tuple(bindings), digest.hexdigest(), tuple(held), tuple(dict.fromkeys(compiled)),
                 complete=not (cut or queue), sizes=tuple(sizes))


def _global_names(obj: Any) -> Iterator[tuple[dict[str, Any], str, CodeType]]:
    """(globals, name, code) for each global name the code of ``obj`` (a function, a class's methods) reads."""
    for function in functions_of(obj):
        namespace = function.__globals__
        for code in codes(function.__code__):
            for name in code.co_names:
                yield namespace, name, code
