"""The Rappture plots' module state (:mod:`nanohubmcp.sources.rappture.plots`) made empty for one test.

A run that may plot leaves blank figures kept for the next, and a program still running after
:data:`~nanohubmcp.sources.rappture.plots.PREPARE_AFTER` s starts a thread making them; a later test in the same
process (the same pytest-xdist worker) found such figures already made, or a timer firing under it, and saw
another path than the one it drives (ci61: ``_fill`` returned before the line a test waited for).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from support import wait_until

from nanohubmcp.sources.rappture import plots


def _settled() -> bool:
    """No thread making figures, and no timer about to start one."""
    waiting = any(t.name == "nanohubmcp-rappture-figures-soon" and t.is_alive() for t in threading.enumerate())
    return not waiting and not plots._filling


@contextmanager
def no_figures_kept() -> Iterator[None]:
    """No figures kept from an earlier test while the block runs, and none left after it."""
    for _ in range(2):
        wait_until(_settled, "the figure threads and timers of earlier runs are done")
        with plots._lock:
            plots._spares.clear()
            plots._used.clear()
            plots._wanted = 1
        if _settled():
            break
    try:
        yield
    finally:
        wait_until(_settled, "the figure threads and timers of this test are done")
        with plots._lock:
            plots._spares.clear()
            plots._used.clear()
            plots._wanted = 1
