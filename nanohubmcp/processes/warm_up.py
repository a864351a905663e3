"""A served process imports what a first ``tools/call`` needs while it waits idle after start, on a thread.

A server's first answer (``initialize``) imports only what it needs (the start's cost: spawn -> first answer);
every other handler, the call machinery behind it and the services made at their first use are imported at
their first request (:mod:`nanohubmcp.server.methods`). For ``tools/call`` that was ~160 M instructions of
imports and module bodies (~140 modules: the tools handler, running and shaping a call, the provenance and
result cache layers, the schema compiler) against ~1-2 M for a steady call: what an assistant's first call
after a server started paid as latency (bench/startup.md, "first call").

:func:`warm_up` imports them on a daemon thread once the server has listened for :data:`..serving.runner.AFTER_SECONDS`
(1 s; :meth:`..serving.runner.Runner.serve_forever`, a process the server owns): after the first answer of a client that
connects at start, before the first call of one that thinks first. No service is made, nothing of the loop's is
touched; the import system's module locks make an import that the loop's first call needs
meanwhile wait for the thread's (or do it itself), as two threads importing do. A module that fails to import
(an optional library missing) is skipped: the call that needs it meets the error as before.

Then it compiles the argument checks of the tools registered by then
(:meth:`~nanohubmcp.schema.ArgumentValidator.prepare`: the fast path's generated checks, ~5 M instructions of
a first call on the loop for a tool of two parameters), the first :data:`PREPARED_TOOLS`
of them in their listing's order, given as a list taken on the loop when the warm-up starts. A check belongs to
its tool's record: a tool defined again (a new record, a new validator) or registered later compiles its own at
its first call, as before; a first call that comes while the thread compiles the same check compiles it too
rather than wait (either's result is the same), and a check that fails to compile is left to the call, which
answers its error as before.

Not done for a server on a loop it does not own (a notebook's thread or kernel mode): the process is its
user's, and a notebook's first call is not a client's first latency.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import threading
from collections.abc import Iterable
from typing import Protocol

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

PREPARED_TOOLS = 32
"""Tools whose argument checks the warm-up compiles, at most (the first listed): ~1-2 ms of CPU each natively for a
tool of a few parameters, one compile more per optional parameter; a catalogue of hundreds compiles the rest at
their first calls."""


class Preparable(Protocol):
    """What the warm-up compiles: a tool's argument validator (:class:`~nanohubmcp.schema.ArgumentValidator`)."""

    def prepare(self) -> None:
        """Compile what the first check would."""


def warm_up(checks: Iterable[Preparable] = ()) -> threading.Thread:
    """Start importing :data:`FIRST_CALL_MODULES` on a daemon thread, then compiling ``checks`` (the first
    :data:`PREPARED_TOOLS` of them; taken now, on the caller's thread); returns the thread (started). Call from the
    serving thread; raises nothing: a module that cannot be imported, a check that cannot be compiled, is skipped."""
    taken = tuple(itertools.islice(checks, PREPARED_TOOLS))
    thread = threading.Thread(target=_warm, args=(FIRST_CALL_MODULES, taken), name="nanohubmcp-warm-up",
                              daemon=True)
    thread.start()
    return thread


def _warm(names: tuple[str, ...], checks: tuple[Preparable, ...]) -> None:
    for name in names:
        with contextlib.suppress(Exception):  # (ImportError of an optional library, or any a module body raised)
            importlib.import_module(name)
    for check in checks:
        with contextlib.suppress(Exception):  # (the call compiles it again, and answers what it raised)
            check.prepare()
