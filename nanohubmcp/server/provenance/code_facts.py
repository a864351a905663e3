"""What a provenance record says about a tool's code and the environment it runs in.

Per tool, once (kept in ``Tool.extra``, :data:`CODE`): the hash of its code (the source text of its
function, or for a notebook tool the cell that defined it, else the compiled code), its module and
qualified name, its version (its module's ``__version__``, else its distribution's), the Python
version and implementation, and the versions of the installed packages its module uses (the
modules in the function's globals, mapped to installed distributions).

Mapping import names to distributions reads the installed-distributions table, which takes over
a second on a busy machine: it is read once per process on a thread of its own (:func:`warm`), and
until then packages are looked up by import name and the answer is marked incomplete (asked
again at the next record). What a call adds to a record (arguments, digest, where it ran) is
:mod:`.capture`'s.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import platform
import sys
import threading
from types import ModuleType
from typing import Any

from .tool_options import SOURCE

CODE = "provenance_code"
"""``Tool.extra`` key: what :func:`code_of` found (kept for the tool's life)."""


def code_of(tool: Any) -> dict[str, Any]:
    """``{hash, source, version, module, qualname, packages, python, implementation}`` of
    ``tool`` (computed once per tool; the packages and version once more when the distributions
    table has been read: see :func:`warm`)."""
    known = tool.extra.get(CODE)
    if known is not None and (known["complete"] or _table is None):
        return known  # the packages again only once, when the distributions table has been read
    fn = inspect.unwrap(tool.fn)
    if known is None:
        source = tool.extra.get(SOURCE)
        if not isinstance(source, str):
            source = _source(fn)
        if source is not None:
            digest = hashlib.sha256(source.encode()).hexdigest()
        else:
            code = getattr(fn, "__code__", None)
            digest = hashlib.sha256(marshal.dumps(code) if code is not None else repr(fn).encode()).hexdigest()
        known = {
            "hash": f"sha256:{digest}",
            "source": source,
            "module": getattr(fn, "__module__", None),
            "qualname": getattr(fn, "__qualname__", None),
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
        }
    packages, complete = packages_of(fn)
    module = sys.modules.get(getattr(fn, "__module__", "") or "")
    known = {**known, "packages": packages, "version": _module_version(module), "complete": complete}
    tool.extra[CODE] = known  # the source and its hash once; the packages until complete
    return known


def _source(fn: Any) -> str | None:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return None


def _module_version(module: ModuleType | None) -> str | None:
    if module is None:
        return None
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    top = module.__name__.partition(".")[0]
    table = _distributions()
    dists = table.get(top) if table is not None else [top]
    return _version(dists[0]) if dists else None


_table: dict[str, list[str]] | None = None
_table_lock = threading.Lock()
_table_reader: threading.Thread | None = None


def _read_table() -> None:
    global _table
    from importlib import metadata  # here: importing it costs a served script's start a tenth of a second

    table = {name: list(dists) for name, dists in metadata.packages_distributions().items()}
    with _table_lock:
        _table = table


def warm() -> None:
    """Start reading the import-name -> distributions table in the background (once per process).

    Reading it scans every installed distribution (over a second on a busy machine), far too long for
    the event loop or a call's answer: until it is read, :func:`packages_of` asks by import name and
    says its answer is incomplete, so it is not kept."""
    global _table_reader
    with _table_lock:
        if _table is not None or _table_reader is not None:
            return
        # Not a daemon: a daemon thread still reading package metadata while the interpreter finalizes can crash
        # it (SIGSEGV at exit); exit waits for the read instead (a second at most, once per process).
        _table_reader = threading.Thread(target=_read_table, name="nanohubmcp-distributions", daemon=False)
        _table_reader.start()


def _distributions() -> dict[str, list[str]] | None:
    """Top-level import name -> distributions, once read (see :func:`warm`); None before."""
    if _table is None:
        warm()
    return _table


@functools.lru_cache(maxsize=512)
def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def packages_of(fn: Any) -> tuple[dict[str, str], bool]:
    """``({distribution: version}, complete)`` of the installed packages the module of ``fn`` imports
    (the modules in its globals and the modules of the objects it imported by name). Until the
    distributions table is read (:func:`warm`), names are looked up as distributions of the same name
    and ``complete`` is False."""
    names: set[str] = set()
    for value in (getattr(fn, "__globals__", None) or {}).values():
        if isinstance(value, ModuleType):
            names.add(value.__name__.partition(".")[0])
        else:
            owner = getattr(value, "__module__", None)
            if isinstance(owner, str) and owner:
                names.add(owner.partition(".")[0])
    found: dict[str, str] = {}
    table = _distributions()
    for name in sorted(names - sys.stdlib_module_names):
        for dist in table.get(name, ()) if table is not None else (name,):
            version = _version(dist)
            if version is not None:
                found[dist] = version
    return found, table is not None
