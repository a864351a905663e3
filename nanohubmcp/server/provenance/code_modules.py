"""The modules a tool's code reads: which are the user's own, what the code reads from them
(the attribute names after a module's global name, its ``import`` statements) and their files.

A module is the user's own when its file (or a namespace package's folder) is outside the standard
library and ``site-packages``, or when it was made in memory (a notebook's ``__main__``); the
package's own modules never are. The code is read from its bytecode, once per code object.

Serves :mod:`.code_reach`, which owns what is hashed and bound.
"""

from __future__ import annotations

import dis
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
from collections.abc import Iterator
from types import CodeType, FunctionType, ModuleType
from typing import Any

MAX_SOURCE_BYTES = 1024 * 1024
"""A module's file larger than this counts by its size and modification time, not its bytes."""

Path = tuple[str, ...]
"""Attribute names read one after another from a value (``pkg.sub.h``: ``("sub", "h")``)."""

_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_PASSED_OVER = frozenset({"EXTENDED_ARG", "CACHE"})
WHOLE: frozenset[Path] = frozenset({()})
"""The paths of a value used as a whole (no attribute read after it)."""

_IMPORT_NAME = dis.opmap["IMPORT_NAME"]
_CONSTANT_LOADS = frozenset({"LOAD_CONST", "LOAD_SMALL_INT"})


@functools.lru_cache(maxsize=256)
def _imports(code: CodeType) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """(level, module name, names taken by ``from``) of each ``import`` statement in ``code``."""
    found = []
    constants: list[Any] = [None, None]  # the last two constants loaded: the level and the from-list
    for instruction in dis.get_instructions(code):
        if instruction.opname in _CONSTANT_LOADS:
            constants = [constants[1], instruction.argval]
        elif instruction.opname == "IMPORT_NAME":
            level, taken = constants
            found.append((level if isinstance(level, int) else 0, str(instruction.argval),
                          tuple(str(part) for part in taken) if isinstance(taken, tuple) else ()))
    return tuple(found)


@functools.lru_cache(maxsize=256)
def attribute_reads(code: CodeType) -> dict[str, frozenset[Path]]:
    """For each name ``code`` loads as a global, the chains of attributes it reads right after it
    (``()``: the value itself used). Read only for code that reaches a user's module."""
    found: dict[str, set[Path]] = {}
    name: str | None = None
    path: list[str] = []
    for instruction in dis.get_instructions(code):
        op = instruction.opname
        if name is not None and op in _ATTRIBUTE_LOADS:
            path.append(str(instruction.argval))
            continue
        if name is not None and op in _PASSED_OVER:
            continue
        if name is not None:
            found.setdefault(name, set()).add(tuple(path))
            name = None
        if op == "LOAD_GLOBAL":
            name, path = str(instruction.argval), []
    if name is not None:
        found.setdefault(name, set()).add(tuple(path))
    return {key: frozenset(paths) for key, paths in found.items()}


def codes(code: CodeType) -> Iterator[CodeType]:
    """``code`` and the code nested in it (functions, lambdas, comprehensions, classes)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from codes(const)


def is_users_module(value: Any) -> bool:
    """A module of the user's own code: its file (or a namespace package's folders) outside the
    standard library and ``site-packages``, or a module made in memory (a notebook's ``__main__``)."""
    if not isinstance(value, ModuleType):
        return False
    name = getattr(value, "__name__", "")
    if not isinstance(name, str) or name.partition(".")[0] == "nanohubmcp" or name in sys.builtin_module_names:
        return False
    path = getattr(value, "__file__", None)
    if isinstance(path, str):
        return outside_libraries(path)
    if getattr(getattr(value, "__spec__", None), "origin", None) in ("built-in", "frozen"):
        return False
    folders = getattr(value, "__path__", None)
    if folders is not None:  # a namespace package: its own only if a folder of it is
        try:
            return any(outside_libraries(folder) for folder in folders)
        except TypeError:
            return False
    return True


def file_digest(path: str | None) -> bytes:
    """The SHA-256 of a module's file (over :data:`MAX_SOURCE_BYTES`: its size and modification time)."""
    if not path:
        return b"no file"
    try:
        with open(path, "rb") as handle:
            status = os.fstat(handle.fileno())
            if status.st_size > MAX_SOURCE_BYTES:
                return f"size {status.st_size} modified {status.st_mtime_ns}".encode()
            return hashlib.sha256(handle.read(MAX_SOURCE_BYTES + 1)).hexdigest().encode()
    except OSError:
        return b"unreadable"


def imported_files(function: FunctionType) -> Iterator[tuple[str, str]]:
    """(module name, its file) for each module of the user's own that an ``import`` in the function's
    code names (``import mylib``, ``import pkg.sub``, ``from . import sibling``, ``from pkg import sub``),
    found without importing anything: the module loaded, else its file on the import path."""
    for code in codes(function.__code__):
        if _IMPORT_NAME not in code.co_code[::2]:
            continue
        for level, name, taken in _imports(code):
            try:
                base = importlib.util.resolve_name("." * level + name, function.__globals__.get("__package__"))
            except (ImportError, ValueError, TypeError):
                continue
            for module_name in (base, *(f"{base}.{part}" for part in taken if part != "*")):
                path = _users_file(module_name)
                if path is not None:
                    yield module_name, path


def _users_file(name: str) -> str | None:
    """The file of module ``name`` if it is the user's and has one (else None: a library's, built in,
    made in memory, or not found)."""
    loaded = sys.modules.get(name)
    if isinstance(loaded, ModuleType):
        path = getattr(loaded, "__file__", None)
        return path if isinstance(path, str) and is_users_module(loaded) else None
    spec = _spec(name)
    origin = spec.origin if spec is not None and spec.has_location else None
    return origin if origin and outside_libraries(origin) else None


def _spec(name: str) -> Any:
    """Where module ``name`` would be imported from, found on the import path without importing it
    or its packages (a package's folders from its own spec when it is not loaded)."""
    parent = name.rpartition(".")[0]
    folders = None
    if parent:
        loaded = sys.modules.get(parent)
        if isinstance(loaded, ModuleType):
            folders = getattr(loaded, "__path__", None)
        else:
            found = _spec(parent)
            folders = found.submodule_search_locations if found is not None else None
        if folders is None:
            return None
    try:
        return importlib.machinery.PathFinder.find_spec(name, folders)
    except (ImportError, ValueError):
        return None


@functools.lru_cache(maxsize=1024)
def outside_libraries(path: str) -> bool:
    """Whether a file or folder is outside the standard library and ``site-packages`` (its real path)."""
    return not os.path.realpath(path).startswith(_library_prefixes())


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    found = {os.path.realpath(paths[key]) + os.sep for key in keys if key in paths}
    found.update(os.path.realpath(p) + os.sep for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return tuple(sorted(found))


