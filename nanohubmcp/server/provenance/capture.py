"""What a provenance record says about a call, and making it from what the call handed over.

Per tool, once (kept in ``Tool.extra``): the hash of its code (the source text of its function,
or for a notebook tool the cell that defined it, else the compiled code), its version (its
module's ``__version__``, else its distribution's), the versions of the packages its module
uses (the modules in the function's globals, mapped to installed distributions) and the names
of the arguments its input schema marks secret (``format: password`` or ``writeOnly: true``).
Per call: the arguments without the secret ones' values, the SHA-256 digest of the result (its
JSON with sorted keys and no spaces, without ``_meta``), the URIs of its resource links, and
where the call ran (host, process and thread, and an executor's own place: a Dask worker, a
Slurm job and node).

A call hands over only references (:data:`PendingCall`); :func:`build` makes the record from
them later, on the record store's writer thread. The result is copied (shallowly) when it is
handed over, so a layer outside that adds to it cannot change the record; a tool's arguments
and nested result values are not copied (nothing of ours changes them after the call; a job
that changes a list it was given while its record is made is recorded as it was then).
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
import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..results.store import owner_of

if TYPE_CHECKING:
    from ..jobs.record import Job
    from ..registry.components import Tool
    from ..wire.request import RequestContext

from ...protocol import jsonenc
from .tool_options import SOURCE

CODE = "provenance_code"
"""``Tool.extra`` key: what :func:`code_of` found (kept for the tool's life)."""
SECRET_FORMATS = frozenset({"password"})
REDACTED = "[secret: not stored]"


def code_of(tool: Any) -> dict[str, Any]:
    """``{hash, source, version, module, qualname, packages, python, implementation, secrets}`` of
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
            "secrets": secret_names(tool.input_schema),
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
    """``(digest, result without _meta or None when over MAX_KEPT_RESULT_BYTES)``: the digest is
    the SHA-256 of the result's JSON with sorted keys, no spaces, ASCII only (values as sent; an
    array's or table's data kept as JSON text is read as its values), the kept result as JSON
    libraries read it."""
    body = dict(result)
    body.pop("_meta", None)
    encoded: list[jsonenc.Encoded] = []

    def json_value(value: object) -> object:  # what the encoder writes for a value JSON has no form for
        if type(value) is jsonenc.Encoded:
            encoded.append(value)
            return value.value
        return str(value)

    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=json_value).encode()
    kept = (jsonenc.plain(body) if encoded else body) if len(text) <= MAX_KEPT_RESULT_BYTES else None
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


# -- making a record from what a call handed over ------------------------------------------------
PendingCall = tuple[str, "Tool", "RequestContext", dict[str, Any], dict[str, Any], float, float, threading.Thread, Any]
"""What a call hands over for its record (references only): ``(record_id, tool, context, params,
result, started, ended, thread, span)`` — the result a shallow copy of the answer without the
record's own ``_meta`` key, ``thread`` the one that served the call, ``span`` the request's server
span when the server traces it (else None)."""
Earlier = Callable[[str], "tuple[str | None, dict[str, Any]] | None"]
"""Finds a record made earlier (in the same batch or stored): ``(owner, body)``, or None."""
Made = tuple[str, "str | None", dict[str, Any], "str | None"]
"""``(record_id, owner, body, code source to keep)``."""
URI_PREFIX = "nanohubmcp://provenance/"
"""A record's URI is this and the record's id."""
CACHE_META = "io.nanohub/cache"
"""The ``_meta`` key of a result the result cache answered or stored: ``{"hit": bool, ...}``."""


class JobEnd:
    """A job's end, handed over for its record (made :func:`build` completes the job's record)."""

    __slots__ = ("executor", "executor_ref", "finished_at", "message", "record_id", "result", "status", "task", "where")

    def __init__(self, record_id: str, job: Job) -> None:
        self.record_id = record_id
        self.status = job.status
        self.finished_at = job.finished_at
        self.executor = job.executor
        self.executor_ref = job.executor_ref
        self.where = dict(job.where or {})
        self.task = job.task_meta() or {}
        self.result = job.result
        self.message = job.status_message


def build(item: PendingCall | JobEnd, earlier: Earlier) -> Made | None:
    """The record of a call (or the completed record of a job), from what was handed over."""
    if isinstance(item, JobEnd):
        return _job_end(item, earlier)
    record_id, tool, context, params, result, started, ended, thread, span = item
    code = code_of(tool)
    arguments = params.get("arguments")
    arguments = arguments if isinstance(arguments, dict) else {}
    meta = result.pop("_meta", None)
    cached = meta.get(CACHE_META) if isinstance(meta, dict) else None
    digest, kept = kept_result(result)
    trace_id = span_id = None
    if span is not None:
        ids = span.get_span_context()
        trace_id, span_id = format(ids.trace_id, "032x"), format(ids.span_id, "016x")
    principal = context.principal
    session = context.session
    body: dict[str, Any] = {
        "id": record_id,
        "uri": URI_PREFIX + record_id,
        "tool": tool.name,
        "code": {
            "hash": code["hash"],
            "module": code["module"],
            "qualname": code["qualname"],
            "version": code["version"],
        },
        "python": {"version": code["python"], "implementation": code["implementation"]},
        "packages": code["packages"],
        "arguments": stored_arguments(arguments, code["secrets"]),
        "principal": str(principal.subject) if principal is not None else None,
        "session": session.id if session is not None else None,
        "request_id": context.request_id,
        "protocol_version": str(context.version),
        "trace_id": trace_id,
        "span_id": span_id,
        "started": started,
        "ended": ended,
        "executor": "event-loop" if tool.is_coroutine else "worker-pool",
        "where": {"host": HOST, "pid": os.getpid(), "thread": thread.name},
        "status": "failed" if result.get("isError") else "completed",
        "result_digest": digest,
        "result": kept,
        "resource_links": resource_links(result),
        "cache": ("hit" if cached.get("hit") else "miss") if isinstance(cached, dict) else None,
    }
    if context.job_id is not None and not (isinstance(cached, dict) and cached.get("hit")):
        body.update(
            job_id=context.job_id,
            status="working",
            ended=None,
            result_digest=None,
            result=None,
            resource_links=[],
            handle_digest=digest,
        )
    return record_id, owner_of(context), body, code["source"]


def _job_end(end: JobEnd, earlier: Earlier) -> Made | None:
    found = earlier(end.record_id)
    if found is None:
        return None  # the record expired (or was dropped) while the job ran
    owner, body = found
    slurm = end.task.get("slurm") if isinstance(end.task.get("slurm"), dict) else None
    where = dict(body["where"])
    where.update(end.where)
    if slurm is not None:
        where.update(slurm_job_id=slurm.get("job_id"), node=slurm.get("node"))
    result = end.result or {}
    digest, kept = kept_result(result) if end.result is not None else (None, None)
    body = {
        **body,
        "status": end.status,
        "ended": end.finished_at or time.time(),
        "executor": end.executor,
        "where": where,
        "result_digest": digest,
        "result": kept,
        "resource_links": resource_links(result),
        "error": end.message if end.status != "completed" else None,
    }
    if end.executor_ref:
        body["executor_ref"] = end.executor_ref
    return end.record_id, owner, body, None
