"""Quitting a process at once (``os._exit``) after the few clean-ups that must not be skipped.

A stopping server quits at once when told again (a second Ctrl-C or SIGTERM) or when its exit watchdog finds it
still running at its exit grace: ``os._exit`` runs no exit handler (:mod:`atexit`), which a blocked thread could
hold up. What must happen even then registers here (:func:`before_quick_exit`; a Rappture tool: the programs its
runs still run are killed, else they would run on, reparented, with no time limit); the quitting code calls
:func:`quick_exit` instead of ``os._exit``. A plain list of callables, so that registering loads no transport.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import NoReturn

__all__ = ["before_quick_exit", "quick_exit"]

_CLEANUPS: list[Callable[[], object]] = []


def before_quick_exit(cleanup: Callable[[], object]) -> None:
    """Have ``cleanup()`` run when this process quits at once (:func:`quick_exit`). It must be quick and bounded
    (it delays the quit) and may run in a signal handler or another thread. Registered once however often
    asked."""
    if cleanup not in _CLEANUPS:
        _CLEANUPS.append(cleanup)


def quick_exit(status: int) -> NoReturn:
    """Run every registered clean-up (one that raises is passed over: the process is quitting), then
    ``os._exit(status)``."""
    for cleanup in list(_CLEANUPS):
        with contextlib.suppress(Exception):
            cleanup()
    os._exit(status)
