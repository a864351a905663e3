"""A large library a served path imports at its first use, announced to the process's collector policy.

A source of tools imports some libraries only when a call first needs them: matplotlib for a Rappture tool's plots
(~63k objects, on the figure thread while the first run's program runs), pint and its unit registry (~50k, on a
worker thread at the first conversion between units). :func:`late_imports` brackets such an import; once the block
has imported a module, the hook the process's policy set is called (:func:`on_late_imports`): a served process sets
:mod:`nanohubmcp.processes.frozen_heap`'s, which freezes what the import made as it froze the start-up, so the
collector's full passes do not walk it. Without a hook (a notebook's or a kernel's server, a script before or
after ``run()``, a tool's own program) nothing is done. A slot of one callable, so that a source announcing an
import loads no processes module; this module decides nothing about the collector.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

__all__ = ["late_imports", "on_late_imports"]

_HOOK: list[Callable[[], object]] = []
"""What to call after a block of :func:`late_imports` imported a module; empty: nothing."""


def on_late_imports(hook: Callable[[], object] | None) -> None:
    """Have ``hook()`` called after each :func:`late_imports` block that imported a module (None: no longer)."""
    _HOOK[:] = [hook] if hook is not None else []


@contextlib.contextmanager
def late_imports() -> Iterator[None]:
    """Bracket a first-use import of a large library (and what the block makes with it): the hook is called on
    this thread as the block ends, if a module was imported meanwhile (by another thread too), and not when the
    block raised. Cheap when the library is in already: two reads of ``len(sys.modules)``."""
    modules = len(sys.modules)
    yield
    hook = _HOOK[:]  # (a copy: the serving thread may clear the slot meanwhile)
    if hook and len(sys.modules) != modules:
        hook[0]()
