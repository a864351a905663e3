"""The clean-ups a server runs each time a process it forked ended: a worker of ``--workers`` (its parent runs them
before it starts a dead one again, and once all its workers ended at the server's stop), a job's process of the
``processes`` executor.

A source of tools registers one with :func:`after_worker_death` when a tool is added (a Rappture tool: the
programs a killed worker left running in its run directories); the worker supervisor
(``processes/workers``, ``processes/supervisor``) calls :func:`run_cleanups` when it hears of a worker's end, the
``processes`` executor (``server/executors/processes``) once a job's process ended. A plain list of callables,
so that registering loads no transport and no Tornado (an app served over stdio, ``server.call()`` in a
notebook, ``nanohubmcp export``'s checks register tools too). This module does not fork, watch or restart
workers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["after_worker_death", "run_cleanups"]

_CLEANUPS: list[Callable[[], object]] = []


def after_worker_death(cleanup: Callable[[], object]) -> None:
    """Have ``cleanup()`` run in the ``--workers`` parent each time a worker ended: died (killed, or
    exited with a status other than 0, or with 0 when nothing told it to stop), before it is started
    again, or stopped as told, alone (a signal sent to it) or with all the others at the server's stop
    (SIGTERM, Ctrl-C, SIGHUP to the parent: run once, when the last worker ended; it may have been ended by its
    exit grace's timer, running no exit code): what a process killed with SIGKILL could not end itself (the
    Rappture programs it was running) is ended then, not when some later process looks. The ``processes``
    executor runs it too once a job's process ended (it runs no exit handler, and a stop kills it with SIGTERM):
    it must be safe to run from several threads at once, and while other processes run.
    Registered once however often asked (registered before forking: the parent runs it)."""
    if cleanup not in _CLEANUPS:
        _CLEANUPS.append(cleanup)


def run_cleanups() -> None:
    """Run every registered clean-up, in the order registered; one that raises is logged (logger
    ``nanohubmcp``) and passed over."""
    for cleanup in list(_CLEANUPS):
        try:
            cleanup()
        except Exception:
            logging.getLogger("nanohubmcp").exception("after a process of the server ended: %r failed", cleanup)
