"""Read the import-name -> distributions table provenance maps a tool's modules by (:mod:`.code_facts`).

:func:`read_table` is the read itself: ``importlib.metadata.packages_distributions()``, each name's distributions
sorted, plus ``"top.second"`` keys for the names several distributions share (:func:`namespaces`), over a second on
a busy machine. :mod:`.code_facts` runs it in a child process (:func:`start_child`, :func:`child_table`): this
file run as a script (``python -I distributions_read.py``, only the standard library), given the parent's
``sys.path`` in its environment (:data:`SEARCH_PATH_VARIABLE`; ``-I`` ignores only ``PYTHON*`` variables),
prints the table as JSON. The parent's interpreter lock is then never held for the read (the
event loop answers calls meanwhile at full speed), and an exit kills the child at once (:func:`stop_child`) where
it waited for a thread reading metadata in-process (a daemon one can crash the interpreter's finalization). The
child reads the same ``sys.path`` with the same interpreter, so its table is the in-process read's, to the byte.

:data:`READER` (:class:`TableReader`) is that child's life in this process: started, waited for, killed at the exit
(an ``atexit`` hook), forgotten by a fork; read in-process (on a non-daemon thread) only when no child could be
started or it failed. No fork of this process happens while the child is being started (:data:`STARTING`): a
process forked then (a ``--workers`` worker, a ``processes`` job) would keep the write end of the child's output
pipe, or of ``Popen``'s exec-status one, and this process would wait for the table until :data:`CHILD_SECONDS`
(or for ever) while it lived. One forked later holds only the output's read end: harmless (this process still
reads the whole table and its end; the child, killed when this process stops reading, never waits on it). The
child is in a session of its own: a terminal's Ctrl-C (SIGINT to its foreground process
group) does not end it, and a child ended by a signal all the same (killed) leaves no table, never a read
in-process the exit would wait for.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import selectors
import subprocess
import sys
import threading
import time
from typing import IO, Any

if __package__:  # (the child's script, ``python -I``, is no package: it needs none of it)
    from ..wire.fork_safe import ForkFence

log = logging.getLogger("nanohubmcp.provenance")

MAX_BYTES = 64 * 1024 * 1024
"""The most a child's table may print (this package's ``.venv``, 280 distributions: ~40 KB)."""
CHILD_SECONDS = 600.0
"""How long the child process reading the table may take before it is killed (the records stop waiting for it
after ``code_facts.WAIT_SECONDS``; later ones still use it once read)."""
SEARCH_PATH_VARIABLE = "NANOHUBMCP_DISTRIBUTIONS_SEARCH_PATH"
"""The child's environment variable holding the parent's ``sys.path`` (:func:`search_path`, as JSON)."""
MAX_SEARCH_PATH_BYTES = 100_000
"""The longest ``sys.path`` (as JSON) a child is given, under Linux's 128 KiB bound on one environment string;
a longer one is read in-process."""
STARTING: Any = ForkFence() if __package__ else None
"""Held while the child is being started (``Popen``'s pipes open in this process): no fork happens then."""


def read_table() -> dict[str, list[str]]:
    """``{import name: sorted distribution names}``, with ``"top.second"`` keys for the names several share.

    Raises:
        Exception: what a broken distribution's metadata raises."""
    from importlib import metadata  # here: importing it costs a served script's start a tenth of a second

    table = {name: sorted(set(dists)) for name, dists in metadata.packages_distributions().items()}
    table.update(namespaces(metadata, {name: dists for name, dists in table.items() if len(dists) > 1}))
    for name, dists in _editable_names_module().editable_names(metadata).items():  # `pip install -e`: not listed
        table[name] = sorted(set(table.get(name, ())) | set(dists))
    return table


def _editable_names_module() -> Any:
    """:mod:`.editable_names`, imported as this package's module, or by its path when this file runs as the
    child's script (``python -I``: no package, nor this folder on ``sys.path``)."""
    if __package__:
        from . import editable_names
        return editable_names
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "_nanohubmcp_editable_names", os.path.join(os.path.dirname(os.path.abspath(__file__)), "editable_names.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def namespaces(metadata: Any, shared: dict[str, list[str]]) -> dict[str, list[str]]:
    """``{"top.second": distributions}`` of the import names several distributions share (``shared``:
    a namespace package, or a package others add modules to), from those distributions' files."""
    found: dict[str, set[str]] = {}
    for name in sorted({dist for dists in shared.values() for dist in dists}):
        try:
            files = metadata.distribution(name).files or ()
        except metadata.PackageNotFoundError:
            continue
        for path in files:
            parts = path.parts
            if len(parts) > 1 and parts[0] in shared and parts[1] != "__pycache__":
                second = parts[1].partition(".")[0] if len(parts) == 2 else parts[1]
                if second and second != "__init__":
                    found.setdefault(f"{parts[0]}.{second}", set()).add(name)
    return {key: sorted(names) for key, names in found.items()}


def start_child() -> Any:
    """Start the child that reads the table (a ``subprocess.Popen`` in a session of its own; its stdout a pipe,
    its stdin ``/dev/null``), given this process's ``sys.path`` — its ``str`` and ``os.PathLike`` entries, as
    text, in :data:`SEARCH_PATH_VARIABLE` — and working folder. No fork of this process happens meanwhile
    (:data:`STARTING`).

    Raises:
        OSError: no child can be started (no ``sys.executable``, an embedded interpreter, no process left, an
            environment too large), this file is not on disk (a zipped install), or ``sys.path`` is over
            :data:`MAX_SEARCH_PATH_BYTES`: read in-process instead."""
    here = os.path.abspath(__file__)
    if not sys.executable or not os.path.isfile(here) or not here.endswith(".py"):
        raise OSError("no interpreter or script to read the distributions table in a child process")
    given = json.dumps(search_path())  # ASCII (``\u`` escapes): any entry's text, in any locale
    if len(given) > MAX_SEARCH_PATH_BYTES:
        raise OSError(f"sys.path is {len(given)} bytes as JSON, over {MAX_SEARCH_PATH_BYTES}")
    env = {**os.environ, SEARCH_PATH_VARIABLE: given}
    with STARTING:
        return subprocess.Popen([sys.executable, "-I", here], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True, env=env)


def search_path() -> list[str]:
    """``sys.path`` as the child is given it: each ``str`` entry, and each ``os.PathLike`` one (a
    ``pathlib.Path``, which importlib reads too) as its text; an entry of another type (bytes) is left out
    (importlib's metadata read fails on it in-process)."""
    entries = (os.fspath(entry) if isinstance(entry, os.PathLike) else entry for entry in list(sys.path))
    return [entry for entry in entries if isinstance(entry, str)]


def child_table(child: Any, timeout: float) -> dict[str, list[str]] | None:
    """The table ``child`` (:func:`start_child`) printed, or None: it failed, or printed no table or more than
    :data:`MAX_BYTES` (then killed).

    Raises:
        TimeoutError: it did not end within ``timeout`` s (killed)."""
    stdout: IO[bytes] = child.stdout
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or size > MAX_BYTES:
                stop_child(child)
                stdout.close()
                if left <= 0:
                    raise TimeoutError(f"the distributions table was not read in {timeout} s")
                return None
            if not selector.select(left):
                continue
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    stdout.close()
    if child.wait() != 0:
        return None
    try:
        table = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return table if isinstance(table, dict) else None


def stop_child(child: Any) -> None:
    """Kill ``child`` if it is still reading (this process exits: nothing waits for its table)."""
    if child.poll() is None:
        child.kill()
        child.wait()


class TableReader:
    """This process's read of the table (:data:`READER`): by a child (:func:`start_child`), which the exit kills
    (:meth:`stop_at_exit`), else in this process on a non-daemon thread the exit waits for (a daemon reading
    metadata at finalization can crash it)."""

    def __init__(self) -> None:
        self.child: Any = None
        """The child reading the table, while it may be running."""
        self.owner = 0
        """The id of the process that started :attr:`child` (a forked child never kills its parent's)."""
        self.exiting = False
        """Set at this process's exit: no child is started, nor a read in-process, after it."""

    def read(self) -> dict[str, list[str]] | None:
        """The table (to be called on a daemon thread: it waits for the child), or None: unreadable, the child
        outlasted :data:`CHILD_SECONDS` or was ended by a signal, or this process exits."""
        try:
            return self._read_in_child()
        except Exception:  # no child could be started, or it failed
            return None if self.exiting else self._read_here()

    def _read_in_child(self) -> dict[str, list[str]] | None:
        """Raises:
            OSError: no child could be started, or it failed: read in this process instead."""
        if self.exiting:
            return None
        child = start_child()
        if self.owner != os.getpid():
            atexit.register(self.stop_at_exit)
        self.child, self.owner = child, os.getpid()
        try:
            table = child_table(child, CHILD_SECONDS)
        except TimeoutError:
            log.warning("reading the installed distributions took over %s s; provenance records look packages "
                        "up by import name", CHILD_SECONDS)
            return None
        finally:
            self.child = None
        if table is not None or self.exiting:
            return table
        if child.returncode is not None and child.returncode < 0:  # killed: not read again in this process
            log.warning("the child process reading the installed distributions was ended by signal %s; "
                        "provenance records look packages up by import name", -child.returncode)
            return None
        raise OSError("the child process reading the installed distributions failed")

    def _read_here(self) -> dict[str, list[str]] | None:
        found: list[dict[str, list[str]]] = []

        def read() -> None:
            try:
                found.append(read_table())
            except Exception:  # a broken distribution's metadata: records then say their packages are incomplete
                log.exception("cannot read the installed distributions; provenance records look packages up by "
                              "import name")

        try:
            reader = threading.Thread(target=read, name="nanohubmcp-distributions-here", daemon=False)
            reader.start()
        except RuntimeError:  # the interpreter is exiting: no new thread
            return None
        reader.join()
        return found[0] if found else None

    def stop_at_exit(self) -> None:
        """At exit: the child still reading is killed (nothing waits for its table)."""
        self.exiting = True
        child = self.child
        if child is not None and self.owner == os.getpid():
            stop_child(child)

    def after_fork(self) -> None:
        """In a forked child: the parent's child, if any, is never this process's to kill."""
        self.child = None


READER = TableReader()


def _main() -> int:
    sys.path[:] = json.loads(os.environ[SEARCH_PATH_VARIABLE])
    try:
        table = read_table()
    except Exception:
        return 1
    sys.stdout.write(json.dumps(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
