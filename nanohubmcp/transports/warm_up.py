"""A served process imports what a first ``tools/call`` needs while it waits idle after start, on a thread.

A server's first answer (``initialize``) imports only what it needs (the start's cost: spawn -> first answer);
every other handler, the call machinery behind it and the services made at their first use are imported at
their first request (:mod:`nanohubmcp.server.methods`). For ``tools/call`` that was ~160 M instructions of
imports and module bodies (~140 modules: the tools handler, running and shaping a call, the provenance and
result cache layers, the schema compiler) against ~1-2 M for a steady call: what an assistant's first call
after a server started paid as latency (bench/startup.md, "first call").

:func:`warm_up` imports them on a daemon thread once the server has listened for :data:`.runner.AFTER_SECONDS`
(1 s; :meth:`.runner.Runner.serve_forever`, a process the server owns): after the first answer of a client that
connects at start, before the first call of one that thinks first. Imports only: no service is made, nothing
of the loop's is touched; the import system's module locks make an import that the loop's first call needs
meanwhile wait for the thread's (or do it itself), as two threads importing do. A module that fails to import
(an optional library missing) is skipped: the call that needs it meets the error as before.

Not done for a server on a loop it does not own (a notebook's thread or kernel mode): the process is its
user's, and a notebook's first call is not a client's first latency.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

FIRST_CALL_MODULES = (
    "nanohubmcp.server.calls.stdin_guard",
    "nanohubmcp.server.calls.tqdm_progress",
    "nanohubmcp.server.handlers.tools",
    "nanohubmcp.server.provenance.layer",
    "nanohubmcp.server.provenance.cache_layer",
    "nanohubmcp.schema.fastpath",
    "fastjsonschema",  # the schema compiler's library (at a tool's first call)
    "orjson",  # the fast extra, when installed (the first result's text)
    "importlib.metadata",  # the installed distributions provenance's first record reads (needless with provenance off)
)
"""What a served script's first ``tools/call`` imported (``python -X importtime``, the modules imported at top
level during that call), in the order it did."""

def warm_up() -> threading.Thread:
    """Start importing :data:`FIRST_CALL_MODULES` on a daemon thread; returns it (started). Call from the
    serving thread; raises nothing: a module that cannot be imported is skipped."""
    thread = threading.Thread(target=_import_all, args=(FIRST_CALL_MODULES,), name="nanohubmcp-warm-up",
                              daemon=True)
    thread.start()
    return thread


def _import_all(names: tuple[str, ...]) -> None:
    for name in names:
        with contextlib.suppress(Exception):  # (ImportError of an optional library, or any a module body raised)
            importlib.import_module(name)
