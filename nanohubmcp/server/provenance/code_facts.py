"""What a provenance record says about a tool's code and the environment it runs in.

Per tool, once (kept in ``Tool.extra``, :data:`CODE`; for a tool whose code is files, a Rappture
program or a Sim2L notebook, once per version of them: :class:`.code_files.WatchedCode`): the hash
of its code (the source text of its
function — of a ``functools.partial``'s function, of a callable object's class —, the name of a builtin
function or of a named callable object of a C type, such as a numpy ufunc, or for a notebook tool
the cell that defined it, else the compiled code: the same in every process), its module and
qualified name, its version (its module's ``__version__``, else its distribution's; for code that is files, the
version they state, else none), the Python
version and implementation, and the versions of the installed packages its module uses (the
modules in the function's globals, mapped to installed distributions).

Import names map to distributions through the installed-distributions table
(``importlib.metadata.packages_distributions()``: ``yaml`` is PyYAML, ``PIL`` pillow). A name
several distributions share (a namespace package: ``opentelemetry``, ``google``) maps by its
second part (``opentelemetry.trace`` is opentelemetry-api), read from those distributions'
files. Reading the table takes over a second on a busy machine: it is read once per process by a
child process (:mod:`.distributions_read`: this process's interpreter lock is not held for it, and an exit
kills it at once), waited for on a daemon thread (:func:`warm`, started when the provenance layer is made, at
the first call; read in this process, on a non-daemon thread, when no child can be started), and
:func:`code_of` — called on the record writer's thread, never on a call's path — waits for it
(:data:`WAIT_SECONDS` at most). A server's stop ends that wait for its own records (:class:`TableWait`, one
per record store: another server of the process, still serving, waits on): the records it writes are on disk
when it returns, and it runs on the event loop, so it cannot wait seconds for the table (a worker of
``--workers`` reads it again after its fork; a hub's NFS home reads it slowly). Only
if the table is not read in time, or the server stopped first, are the packages looked up by import
name; the record then says ``packages_complete: false`` (and the answer is not kept: the next record
asks again). The call path needs only the code's hash
(:func:`code_hash`; the result cache's key takes :func:`key_code`, a function's compiled code), which reads
no table. What a call adds to a record
(arguments, digest, where it ran) is :mod:`.capture`'s; what the records of a tool share in a process
(these facts, with the host and process id) is :mod:`.tool_facts`'.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import platform
import sys
import threading
import time
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any

from ..wire.fork_safe import ForkSafeLock, after_fork_in_child
from . import distributions_read
from .code_files import WATCHED
from .reached_bytes import code_text
from .tool_options import SOURCE

CODE = "provenance_code"
"""``Tool.extra`` key: what :func:`code_of` found (kept for the tool's life once complete)."""
KEY_CODE = "provenance_key_code"
"""``Tool.extra`` key: what :func:`key_code` found."""
BASE = "provenance_code_base"
"""``Tool.extra`` key: the part of it that needs no table (hash, source, names, Python)."""
WAIT_SECONDS = 60.0
"""How long after :func:`warm` started reading the distributions table :func:`code_of` waits for
it at most (read in 1 to 2 s natively; far longer under valgrind or on a swamped machine). A record
made later without it says ``packages_complete: false``."""


def code_hash(tool: Any) -> str:
    """``"sha256:<hex>"`` of ``tool``'s code (computed once per tool; reads no distributions table:
    cheap enough for a call's path). A tool whose code is files (:data:`.code_files.WATCHED`) hashes
    them as they are now: a ``stat`` per file, read again only when one changed."""
    watched = tool.extra.get(WATCHED)
    if watched is not None:
        current: str = watched.current().hash
        return current
    known = tool.extra.get(BASE)
    if known is None:
        known = _base(tool)
    hash_: str = known["hash"]
    return hash_


def key_code(tool: Any) -> str:
    """What the result cache keys ``tool``'s own code by (computed once per tool): for a tool whose code is
    files, :func:`code_hash` (the files as they are now); for Python code — a function, a method, a callable
    object's class, a ``functools.partial``'s function — ``"compiled:sha256:<hex>"`` of its compiled code
    (instructions, names, constants, defaults: as its helpers count, so its comments, blank lines and place
    in the file do not); else (a builtin function, a ufunc) :func:`code_hash`, its name. The record's code
    hash stays :func:`code_hash`."""
    if tool.extra.get(WATCHED) is not None:
        return code_hash(tool)
    known = tool.extra.get(KEY_CODE)
    if known is None:
        fn = _code_owner(tool.fn)
        if isinstance(fn, (FunctionType, MethodType, type)):
            known = "compiled:sha256:" + hashlib.sha256(code_text(fn)).hexdigest()
        else:
            known = code_hash(tool)
        tool.extra[KEY_CODE] = known
    return str(known)


def code_of(tool: Any, ran: str | None = None, waits: TableWait | None = None) -> dict[str, Any]:
    """``{hash, source, version, module, qualname, packages, packages_complete, python,
    implementation}`` of ``tool`` (computed once per tool, and for a tool whose code is files once
    per version of them).

    ``ran``: the code hash a call ran with (:func:`code_hash` on its path), for a tool whose code is
    files: the answer is of that version while it is remembered, so a record made after a later edit
    still names the code that ran.

    Waits for the distributions table (:func:`warm`, :data:`WAIT_SECONDS` at most; ``waits``: the record
    store's, whose server's stop ends the wait, :class:`TableWait`): call it off a call's path (the record
    writer's thread). An answer made without the table (not read in time, or unreadable, or the server
    stopping) has ``packages_complete`` False and is not kept."""
    known = tool.extra.get(CODE)
    watched = tool.extra.get(WATCHED)
    if watched is not None:
        version = watched.version(ran)
        if known is not None and known["hash"] == version.hash:
            return known
        base = _base(tool, version.source)
    elif known is not None:
        return known
    else:
        base = _base(tool)
    fn = _code_owner(tool.fn)
    table = distributions(wait=waits or True)
    module = sys.modules.get(getattr(fn, "__module__", "") or "")
    known = {
        **base,
        "packages": packages_of(fn, table),
        "packages_complete": table is not None,
        # Code that is files (a Rappture tool, a Sim2L): the version they state (their reader's detail), not that
        # of the module running them (nanohubmcp's own).
        "version": _module_version(module, table) if watched is None else _files_version(version.detail),
    }
    if table is not None:
        tool.extra[CODE] = known
    return known


def _base(tool: Any, files: str | None = None) -> dict[str, Any]:
    """The table-free part of :func:`code_of`: of the function (kept), or of ``files``' code text
    (a version of a tool's files: not kept here, its hash is the :class:`.code_files.Version`'s)."""
    known = tool.extra.get(BASE) if files is None else None
    if known is not None:
        return known
    fn = _code_owner(tool.fn)
    source = tool.extra.get(SOURCE) if files is None else files
    if not isinstance(source, str):
        source = _source(fn)
    if source is not None:
        digest = hashlib.sha256(source.encode()).hexdigest()
    elif isinstance(fn, (FunctionType, MethodType, type)):  # made in memory: its compiled code
        digest = hashlib.sha256(code_text(fn)).hexdigest()
    else:  # a builtin function, a ufunc: its name
        name = f"{getattr(fn, '__module__', None)}.{_name_of(fn)}"
        digest = hashlib.sha256(name.encode()).hexdigest()
    named = _named(tool.fn) or fn
    known = {
        "hash": f"sha256:{digest}",
        "source": source,
        "module": getattr(named, "__module__", None),
        "qualname": _name_of(named),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }
    if files is None:
        tool.extra[BASE] = known
    return known


def _code_owner(fn: Any) -> Any:
    """What holds the code ``fn`` runs: a function (or a wrapper's, ``__wrapped__``) itself; a
    ``functools.partial``'s function; a callable object's class; a named callable object of a C type (a numpy
    ufunc: ``np.sin``), which is its own code as a builtin function is, told by its name. Never another object
    itself: its ``repr`` holds its address, another in each process, and its attributes are values (the
    result cache's key holds them, :mod:`.code_reach`), not code."""
    fn = inspect.unwrap(fn)
    for _ in range(64):  # (a partial of a partial of another kind: each taken apart, a bounded number)
        if not isinstance(fn, (functools.partial, functools.partialmethod)):
            break
        fn = inspect.unwrap(fn.func)
    if isinstance(fn, (FunctionType, MethodType, type, BuiltinFunctionType)) or _compiled_and_named(fn):
        return fn
    return type(fn)


def _compiled_and_named(fn: Any) -> bool:
    """A callable object whose class runs no Python code when called (a C type's ``__call__``: every numpy
    ufunc is one ``numpy.ufunc``) and that has a name of its own: the class says nothing of which one it is."""
    call = inspect.getattr_static(type(fn), "__call__", None)
    return not isinstance(call, FunctionType) and isinstance(getattr(fn, "__name__", None), str)


def _name_of(fn: Any) -> str | None:
    """``fn``'s qualified name, else its name (a ufunc has no ``__qualname__``)."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name if isinstance(name, str) else None


def _named(fn: Any) -> Any:
    """A callable object that names what it runs itself (its own ``__module__`` and ``__qualname__``: a
    Rappture or Sim2L tool's runner names the program), else None."""
    fn = inspect.unwrap(fn)
    own = getattr(fn, "__dict__", None)
    return fn if isinstance(own, dict) and "__qualname__" in own and "__module__" in own else None


def _source(fn: Any) -> str | None:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return None


def _files_version(detail: Any) -> str | None:
    """The version a file-backed tool's reader found in its files (``detail["version"]``), else None."""
    found = detail.get("version") if isinstance(detail, dict) else None
    return found if isinstance(found, str) and found else None


def _module_version(module: ModuleType | None, table: dict[str, list[str]] | None) -> str | None:
    if module is None:
        return None
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    dists = _distributions_of(module.__name__, table)
    return _version(dists[0]) if dists else None


_table: dict[str, list[str]] | None = None
_table_lock = ForkSafeLock()
_table_reader: threading.Thread | None = None
_table_started = 0.0
_read = threading.Event()
"""Set once the reading thread ended (the table read, or not readable)."""
_woken = threading.Condition()
"""Notified when the read ends and at a server's stop (:meth:`TableWait.stop`): the waits for the table look
again whether they are to go on (:func:`distributions`)."""


class TableWait:
    """Whether the records of one store (one server) wait for the distributions table: they do while it is
    being read, until the server stops (:meth:`stop`: a wait going on then ends at once; the records written
    meanwhile without the table say ``packages_complete: false``), and again once it serves (:meth:`serve`).
    Another server of the process has its own: one's stop is not another's (review r28 #6)."""

    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        """The server stops: none of its records waits for the table, until :meth:`serve`."""
        self.stopped = True
        with _woken:
            _woken.notify_all()

    def serve(self) -> None:
        """The server serves (again): its records wait for the table again while it is being read."""
        self.stopped = False


def _read_table() -> None:
    """The reading thread (a daemon: it waits for :mod:`.distributions_read`'s child process, which the exit
    kills; a read in this process, when no child can be started, is on a non-daemon thread of its own)."""
    global _table
    try:
        table = distributions_read.READER.read()
        if table is not None:
            with _table_lock:
                _table = table
    finally:
        _read.set()
        with _woken:
            _woken.notify_all()


def warm() -> None:
    """Start reading the import-name -> distributions table in the background (once per process).

    Reading it scans every installed distribution (over a second on a busy machine), far too long for
    the event loop or a call's answer; :func:`code_of` (off the call path) waits for it."""
    global _table_reader, _table_started
    if _table_reader is not None:  # (no lock: started once, and a second look under it below)
        return

    with _table_lock:
        if _table is not None or _table_reader is not None:
            return
        # A daemon: it waits for a child process, which the exit kills; a read in this process, if no child can
        # be started, is on a non-daemon thread of its own (distributions_read.TableReader).
        _table_started = time.monotonic()
        _table_reader = threading.Thread(target=_read_table, name="nanohubmcp-distributions", daemon=True)
        _table_reader.start()


def distributions(*, wait: bool | TableWait = False) -> dict[str, list[str]] | None:
    """The import name -> distributions table, once read (see :func:`warm`), else None; ``wait``:
    wait for it until :data:`WAIT_SECONDS` after the read started (a :class:`TableWait`: unless, or until,
    its server stops)."""
    if _table is None:
        warm()
        if wait and _table_reader is not None:
            stop = wait if isinstance(wait, TableWait) else None
            deadline = _table_started + WAIT_SECONDS
            with _woken:
                while not _read.is_set() and not (stop is not None and stop.stopped):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    _woken.wait(left)
    return _table


def _after_fork() -> None:  # a forked child has no reading thread (it reads again if it must), nor waiting ones
    global _table_reader, _read, _woken
    _woken = threading.Condition()
    distributions_read.READER.after_fork()
    if _table is None:
        _table_reader = None
        _read = threading.Event()


after_fork_in_child(_after_fork)


def _distributions_of(module: str, table: dict[str, list[str]] | None) -> list[str]:
    """The distributions that may hold ``module`` (a dotted name): by its first two parts when
    several distributions share its first, else by its first; by the name itself without a table."""
    top, _, rest = module.partition(".")
    if table is None:
        return [top]
    if rest:
        dists = table.get(f"{top}.{rest.partition('.')[0]}")
        if dists is not None:
            return dists
    return table.get(top, [])


@functools.lru_cache(maxsize=512)
def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def packages_of(fn: Any, table: dict[str, list[str]] | None) -> dict[str, str]:
    """``{distribution: version}`` of the installed packages the module of ``fn`` (a function, or a class)
    imports (the modules in its globals, the modules of the objects it imported by name, and for a
    namespace package imported itself its submodules loaded; for a builtin function or a ufunc, which has
    no globals, the package it comes from), mapped by ``table`` (:func:`distributions`;
    None: each top-level name looked up as a distribution of the same name)."""
    names: set[str] = set()
    namespace = getattr(fn, "__globals__", None)
    if namespace is None and isinstance(fn, type):  # a callable object's class: its module's
        namespace = vars(module) if isinstance(module := sys.modules.get(fn.__module__), ModuleType) else None
    elif namespace is None and isinstance(own := getattr(fn, "__module__", None), str) and own:
        names.add(own)  # a builtin function, a ufunc (no globals): the package it comes from
    for value in (namespace or {}).values():
        if isinstance(value, ModuleType):
            name = value.__name__
            parts: set[str] = set()
            if table is not None and "." not in name and len(table.get(name, ())) > 1:
                # `import opentelemetry.trace` binds the shared name: its loaded submodules say which parts
                parts = {
                    sub.__name__ for sub in vars(value).values()
                    if isinstance(sub, ModuleType) and sub.__name__.startswith(name + ".")
                }
            names.update(parts or (name,))
        else:
            owner = getattr(value, "__module__", None)
            if isinstance(owner, str) and owner:
                names.add(owner)
    found: dict[str, str] = {}
    for name in sorted(names):
        if name.partition(".")[0] in sys.stdlib_module_names:
            continue
        for dist in _distributions_of(name, table):
            version = _version(dist)
            if version is not None:
                found[dist] = version
    return dict(sorted(found.items()))
