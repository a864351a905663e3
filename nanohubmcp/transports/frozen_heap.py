"""The objects of a served process's start-up, kept out of the cyclic garbage collector's full passes.

A server started by :meth:`.runner.Runner.serve_forever` (``nanohubmcp run``, ``server.run()``) owns its
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
own before: those and ours are then left frozen (the collector cannot tell them apart).

Not done for a server on a loop it does not own (a notebook's thread or kernel mode): that process's
objects are its user's.
"""

from __future__ import annotations

import gc


def freeze_start_up() -> bool:
    """Move every object the collector tracks now to its permanent generation; returns whether :func:`thaw`
    may undo it (nothing was frozen before). Call once serving has started, on the serving thread."""
    ours = gc.get_freeze_count() == 0
    gc.freeze()
    return ours


def thaw(ours: bool) -> None:
    """Serving ended: the objects :func:`freeze_start_up` froze go back to the collector (``ours``: what it
    returned; False leaves the process's own frozen objects, and ours with them, as they are)."""
    if ours:
        gc.unfreeze()
