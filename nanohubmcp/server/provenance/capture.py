"""What a provenance record says about a call, gathered cheaply.

Per tool, once (kept in ``Tool.extra``): the hash of its code (the source text of its function,
or for a notebook tool the cell that defined it, else the compiled code), its version (its
module's ``__version__``, else its distribution's) and the versions of the packages its module
uses (the modules in the function's globals, mapped to installed distributions). Per call: the
arguments without those the input schema marks secret (``format: password`` or
``writeOnly: true``), the SHA-256 digest of the result (its canonical JSON without ``_meta``),
the URIs of its resource links, and where the call ran (host and process, and an executor's own
place: a Dask worker, a Slurm job and node).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import marshal
import os
import platform
import socket
import sys
import threading
from types import ModuleType
from typing import Any

from ...protocol import jsonenc

SOURCE = "provenance_source"
"""``Tool.extra`` key: the text a tool's code hash is taken of, when it is not its function's source
(a notebook tool's defining cell)."""
CODE = "provenance_code"
"""``Tool.extra`` key: what :func:`code_of` found (kept for the tool's life)."""
SECRET_FORMATS = frozenset({"password"})
REDACTED = "[secret: not stored]"


def code_of(tool: Any) -> dict[str, Any]:
    """``{hash, source, version, module, packages, python}`` of ``tool`` (computed once per tool;
    the packages again, cheaply, until the distributions table is read: see :func:`warm`)."""
    known = tool.extra.get(CODE)
    if known is not None and known["complete"]:
        return known
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


def secret_names(schema: dict[str, Any]) -> frozenset[str]:
    """The top-level argument names ``schema`` marks secret (``format: password``, ``writeOnly``)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    return frozenset(name for name, prop in properties.items() if _is_secret(prop))


def _is_secret(prop: object) -> bool:
    if not isinstance(prop, dict):
        return False
    if prop.get("format") in SECRET_FORMATS or prop.get("writeOnly") is True:
        return True
    return any(_is_secret(choice) for key in ("anyOf", "oneOf", "allOf") for choice in prop.get(key) or ())


def stored_arguments(arguments: dict[str, Any], secrets: frozenset[str]) -> dict[str, Any]:
    """``arguments`` with each secret one's value replaced by a marker (the name stays, not the value)."""
    if not secrets:
        return arguments
    return {name: REDACTED if name in secrets else value for name, value in arguments.items()}


def canonical(value: Any) -> bytes:
    """Canonical JSON of ``value`` (sorted keys, no spaces, UTF-8): what digests and cache keys hash.

    A number is one value whatever its spelling: ``3`` and ``3.0`` are the same JSON Schema number (and
    integer), so an integral float is written as the integer (a float parameter called with 3 and with
    3.0 is one cached call)."""
    return json.dumps(_numbers(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str).encode()


def _numbers(value: Any) -> Any:
    if type(value) is jsonenc.Encoded:  # an array's or table's data, kept as its JSON text
        value = value.value
    if type(value) is float and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_numbers(item) for item in value]
    return value


MAX_KEPT_RESULT_BYTES = 64 * 1024
"""A result up to this size (canonical JSON) is kept in its record (for the RO-Crate export);
a larger one is named by its digest and resource links only."""


def result_digest(result: dict[str, Any]) -> str:
    """``sha256:…`` of a ``CallToolResult`` without its ``_meta``."""
    return kept_result(result)[0]


def kept_result(result: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """``(digest, result without _meta or None when over MAX_KEPT_RESULT_BYTES)``."""
    body = {key: value for key, value in result.items() if key != "_meta"}
    text = canonical(body)
    kept = jsonenc.plain(body) if len(text) <= MAX_KEPT_RESULT_BYTES else None  # as JSON libraries read it
    return "sha256:" + hashlib.sha256(text).hexdigest(), kept


def resource_links(result: dict[str, Any]) -> list[str]:
    """The URIs of the ``resource_link`` blocks (and embedded resources) of a result."""
    links = []
    for block in result.get("content") or ():
        if isinstance(block, dict):
            if block.get("type") == "resource_link" and isinstance(block.get("uri"), str):
                links.append(block["uri"])
            elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
                uri = block["resource"].get("uri")
                if isinstance(uri, str):
                    links.append(uri)
    return links


HOST = socket.gethostname()


def here() -> dict[str, Any]:
    """Where this process runs: host, pid and thread."""
    return {"host": HOST, "pid": os.getpid(), "thread": threading.current_thread().name}
