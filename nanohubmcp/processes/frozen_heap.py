"""The objects of a served process's start-up, kept out of the cyclic garbage collector's full passes.

A server started by :meth:`..serving.runner.Runner.serve_forever` (``nanohubmcp run``, ``server.run()``) owns its
process: once it listens, what its start made (modules, functions, classes, the registry, Tornado's
application: ~40,000 tracked objects for a small server) lives until the process ends. Left in the
collector's oldest generation, each of its full (generation 2) passes walked them all: 12-55 ms with
the event loop held, every few seconds under load (the provenance records promoted while they wait for
their writer fill the generation), and every request in flight waited that long (the c=64 tail in
bench/findings.md). :func:`freeze_start_up` moves them to the permanent generation (:func:`gc.freeze`):
a full pass then walks what serving made since (~10,000 objects: 3-10 ms). Nothing is collected
before the freeze (a pass there would hold the first answer ~30 ms); a cycle of garbage made by the
start-up is then kept while it serves (it was going to be at most one pass's worth). When serving ends
(``run()`` returns to the script) :func:`thaw` puts them back, unless the process had frozen objects of its
own before: those and ours are then left frozen (the collector cannot tell them apart); a process the ``nanohubmcp``
command serves ends next, frozen (``kept``).

The ``--workers`` parent freezes its start-up before its first fork (Python's advice for a server that forks: from
their fork on, the workers' full passes never walk, so never copy, the pages they share with it), and each worker its
own at its serving's start: what it made since the fork.

A freeze the process ends with (``kept``, or one :func:`thaw` will not undo) notes the file objects among what it
freezes (:func:`frozen_files`, weakly: one freed is forgotten): the exit of a served process flushes the files left
open (:mod:`.process_end`) without walking the frozen heap, whose ~320k objects (a Sim2L server's) took 0.25-0.5 s
to walk in a forked worker, each page it touched copied.

Nor does the collector run between ``run()``'s call and that freeze (:func:`pause_collection`): what it would walk
there is what the freeze is about to move out of its reach (~8.6 M instructions of a cold start's ~515 M: the
passes that walked Tornado's, asyncio's and our modules as they were imported, bench/startup.md). A cycle of
garbage made there is kept, as one made before the freeze is anyway.

While the start-up stays frozen, what a served path imports late (:mod:`..server.wire.late_imports`) is frozen as
it is imported (:func:`freeze_late_imports`): matplotlib for a Rappture tool's plots (~63k objects) and pint's unit
registry (~50k) came after the freeze, and each full pass then walked them (~100k objects: 74 ms on the figure
thread at load 3, 194 ms at load 8, bench/findings.md). That freeze takes what the process tracks then, a call's
objects in flight too: a cycle of garbage among those is kept (once per such import, a few per process).

Not done for a server on a loop it does not own (a notebook's thread or kernel mode): that process's
objects are its user's.
"""

from __future__ import annotations

import _io
import gc
import weakref

from ..server.wire.fork_safe import ForkSafeLock
from ..server.wire.late_imports import on_late_imports

_FILES: weakref.WeakSet[_io._IOBase] = weakref.WeakSet()
"""The file objects among what :func:`freeze_start_up` froze for good, while they live."""
_KEPT: list[bool] = []
"""Whether this process, or the parent it was forked from, froze for good (``kept``)."""
_PAUSED: list[bool] = []
"""Whether :func:`pause_collection` turned the collector off (it was on), until :func:`resume_collection`."""
_SERVING: list[bool] = []
"""Whether :func:`freeze_start_up` froze this process's start-up (or its parent's, forked), until :func:`thaw`."""
_turn = ForkSafeLock()  # a late import's freeze and thaw one at a time (the freeze on another thread)


def pause_collection() -> None:
    """A blocking serve starts (``run()`` owns the process): no collection until its start-up is frozen
    (:func:`freeze_start_up` resumes it) or the serve ends without serving (:func:`resume_collection`). A
    collector the process turned off itself stays off; a second pause before the resume does nothing. On the
    serving thread only."""
    if gc.isenabled() and not _PAUSED:
        gc.disable()
        _PAUSED.append(True)


def resume_collection() -> None:
    """The collector back on if :func:`pause_collection` turned it off (else nothing): once frozen, or when
    the serve that paused it ended, by an error too."""
    if _PAUSED:
        _PAUSED.clear()
        gc.enable()


def freeze_start_up(*, kept: bool = False) -> bool:
    """Move every object the collector tracks now to its permanent generation; returns whether :func:`thaw`
    may undo it (nothing was frozen before). Call once serving has started, on the serving thread (the
    ``--workers`` parent: before its first fork). ``kept``: the process ends frozen (the ``--workers`` parent, a
    process the command serves: :func:`.process_end.was_served`), :func:`thaw` then undoes nothing.

    A freeze never undone (``kept``, or not ours) notes the file objects among what it freezes
    (:func:`frozen_files`): one walk of what is not frozen yet, in a forked worker only what it made since the
    fork."""
    ours = not _KEPT and gc.get_freeze_count() == 0  # (the count walks the frozen: in a worker, its parent's heap)
    if kept or not ours:
        _KEPT[:] = [True]
    with _turn:
        _freeze()
        _SERVING[:] = [True]
    on_late_imports(freeze_late_imports)
    resume_collection()  # (what it would have walked since the pause is frozen now)
    return ours


def _freeze() -> None:
    """Everything tracked to the permanent generation; for good (``_KEPT``), its file objects noted first."""
    if _KEPT:
        _FILES.update(files_among(gc.get_objects()))
    gc.freeze()


def freeze_late_imports() -> None:
    """A served path imported a large library (:func:`..server.wire.late_imports.late_imports`, the hook
    :func:`freeze_start_up` sets): while the start-up is frozen (until :func:`thaw`), what the process tracks now is
    frozen as it was (the library's modules, and what the block made with them); else nothing. Any thread. Undone
    by :func:`thaw` with the start-up's; a freeze for good notes its file objects as the start-up's did."""
    with _turn:
        if _SERVING:
            _freeze()


def files_among(objects: list[object]) -> list[_io._IOBase]:
    """The file objects (``io``'s, any :class:`io.IOBase`; in memory too) in ``objects``."""
    # (_io's base class, which io.IOBase's ABC and every file object derive from: checked in C, ~5x faster, which
    # counts over a Sim2L server's ~300k objects)
    return [each for each in objects if isinstance(each, _io._IOBase)]


def frozen_files() -> list[_io._IOBase]:
    """The file objects a freeze never undone froze (:func:`freeze_start_up`) that still live, open or closed: a
    walk of the collector's objects (:func:`gc.get_objects`) no longer finds them."""
    return list(_FILES)


def thaw(ours: bool) -> None:
    """Serving ended: the objects :func:`freeze_start_up` froze go back to the collector (``ours``: what it
    returned; False leaves the process's own frozen objects, and ours with them, as they are)."""
    on_late_imports(None)
    with _turn:
        _SERVING.clear()
        if ours and not _KEPT:
            gc.unfreeze()
