"""How a process the ``nanohubmcp`` command served in ends: within its exit grace, its finalization skipped.

Once a blocking serve returned (:mod:`.process_exit` bounds that by the exit grace, :mod:`.exit_grace`), the
interpreter's own exit still frees every object and module: for a server holding a large heap (a Sim2L server
loads papermill, nbclient and simtool: ~1900 modules, ~300k objects) that alone took 1-3 s, more in a forked
worker of ``--workers``, whose freeing copies every page it touches. A process supervisor counting on the grace
(systemd's ``TimeoutStopSec``) would kill it at every stop. The serving commands own their process, so they end it
with :func:`end_served_process`: what a program can see of an exit is done (``atexit`` handlers, the ``logging``
shutdown among them; files left open flushed; stdout and stderr flushed), then ``os._exit``, which skips what
nobody can see (the freeing of the heap and of the modules). Finding the files left open walks only what serving
made: those of the start-up were noted as it was frozen (:mod:`.frozen_heap`; a walk of a Sim2L worker's ~320k
objects took 0.25-0.5 s, copying ~60 MB of pages it shared with its parent). Threads still running are not
waited for, as the tool calls left at the grace are not. The end is bounded too: what still runs of it
:data:`~.process_exit.EXIT_MARGIN_SECONDS` after it began (an ``atexit`` handler that hangs, a flush into a pipe
nobody reads) is cut, saying so, with status 1.

A script calling ``MCPServer.run()`` itself owns its exit: nothing here runs there (:func:`served` is never called).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import os
import sys
import threading
from typing import NoReturn

from ..server.wire.quick_exit import quick_exit
from .frozen_heap import files_among, frozen_files

__all__ = ["end_served_process", "served", "was_served"]

_SERVED: list[bool] = []
"""Whether the command served in this process (set by :func:`served`)."""


def served() -> None:
    """Record that the command serves in this process: its end is :func:`end_served_process`'s."""
    _SERVED[:] = [True]


def was_served() -> bool:
    """Whether :func:`served` was called in this process (a forked worker inherits it from its parent)."""
    return bool(_SERVED)


def end_served_process(status: int) -> NoReturn:
    """End this process with ``status`` (0-255) as an exit would, but for the freeing of its heap and modules: run
    the ``atexit`` handlers (those of the app and of its libraries, ``logging``'s shutdown, temporary folders'
    removal), flush every file still open for writing, stdout and stderr last, then ``os._exit(status)``.

    An exception an ``atexit`` handler raises is printed, as at an interpreter's exit; a file that cannot be
    flushed (a closed pipe, a full disk) is left as it is. What is not done :data:`~.process_exit.EXIT_MARGIN_SECONDS`
    after the call is cut: one line on stderr, then ``os._exit(1)``.
    """
    from .process_exit import EXIT_MARGIN_SECONDS  # (loaded once serving ended: not with the first answer)

    cut = threading.Timer(EXIT_MARGIN_SECONDS, _cut, [EXIT_MARGIN_SECONDS])
    cut.daemon = True
    cut.start()
    atexit._run_exitfuncs()  # (prints a handler's exception and goes on, as the interpreter's exit does)
    _flush_open_files()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.flush()
    os._exit(status)


def _cut(after: float) -> None:
    """The end outlasted ``after`` seconds: say so on stderr's descriptor (logging is shut down by now), exit."""
    with contextlib.suppress(OSError):
        os.write(2, f"nanohubmcp (pid {os.getpid()}): the process's exit handlers still ran {after:g} s after "
                    "serving ended; exiting without them\n".encode())
    quick_exit(1)  # (the clean-ups that must not be skipped: a Rappture run's program)


def _flush_open_files() -> None:
    """Flush every file object open for writing, text ones (which write into their buffer) first: what the
    interpreter's exit does as it frees them. Those of the start-up were noted as it was frozen (:mod:`.frozen_heap`):
    only what the collector still walks is walked here (what serving made, in a served process; all of it else)."""
    found = {id(file): file for file in (*frozen_files(), *files_among(gc.get_objects()))}
    files = sorted(found.values(), key=lambda file: not isinstance(file, io.TextIOBase))
    for file in files:
        with contextlib.suppress(Exception):  # (closed, not writable, a broken pipe: nothing to keep)
            if not file.closed:
                file.flush()
