"""Stopping a Sim2L run's kernel when its call is cancelled.

papermill runs the notebook in a kernel it starts (through nbclient and jupyter_client) and waits
for each cell; a cancelled call would otherwise leave that kernel computing for the rest of its
cell (without a cell timeout, for ever). :class:`KernelStop` gives nbclient a kernel manager class
that reports the kernel's process when it has started; :meth:`KernelStop.stop` (the call's cancel
callback) kills that process's group — the kernel was started in a session of its own, so what
the cell started dies with it — as jupyter_client's own ``shutdown_kernel(now=True)`` does.
nbclient then finds the kernel dead (it checks every second), papermill raises, and the call ends.
The same class gives the kernel a pipe for its stdout and stderr (:mod:`.kernel_output`): what it
prints reaches the server's log, not its terminal.

For the process that runs the call being killed itself (SIGKILL, the OOM killer), when nothing is left to
stop the kernel's group: the kernel is started with :data:`~.store.RUN_MARK` naming its run directory in its
environment, and its group is noted beside that directory (:func:`~..run_folders.record_group`), where the
sweep of a dead process's runs finds it (:mod:`..run_folders`: the ``--workers`` parent after a worker died,
the next server at its start). The kernel's connection file (its ports and the key that signs its messages)
is written beside that directory too, ``<run directory>-kernel.json``, not in the system's temporary
directory: jupyter_client removes it when the kernel is shut down, and the sweep (or this process's exit)
removes it with the folder when the process was killed.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...server.wire.run_environment import run_environment
from ..run_folders import record_group
from .kernel_output import relay
from .store import RUN_MARK


class KernelStop:
    """The kernel of one run, and stopping it from another thread (the event loop's cancel callback).

    Args:
        run: the run's directory (where the kernel works): named in the kernel's environment
            (:data:`~.store.RUN_MARK`) and given the note of its process group; None: neither.
    """

    def __init__(self, run: str | None = None) -> None:
        self._run = Path(run).resolve() if run is not None else None
        self._lock = threading.Lock()
        self._pid: int | None = None
        self.stopped = False

    def manager_class(self, tool: str) -> type[Any]:
        """An ``AsyncKernelManager`` class (for nbclient's ``kernel_manager_class``) starting its kernel
        with the run's mark and reporting its process to this object once started; the kernel's output
        is logged as the Sim2L tool ``tool``'s (:func:`.kernel_output.relay`)."""
        from jupyter_client.manager import AsyncKernelManager

        stop = self

        class ReportingKernelManager(AsyncKernelManager):
            async def start_kernel(self, **kwargs: Any) -> None:  # type: ignore[override]  # async in the async manager
                # (jupyter_client adds the kernel spec's variables to this environment; never the server's secrets)
                kwargs["env"] = run_environment(kwargs.get("env"))
                if stop._run is not None:
                    kwargs["env"][RUN_MARK] = str(stop._run)
                    if not self.connection_file:  # (else a /tmp/tmpXXXX.json a killed server leaves behind)
                        self.connection_file = str(connection_file(stop._run))
                output = relay(tool)
                try:
                    await super().start_kernel(**{"stdout": output, "stderr": output, **kwargs})
                finally:
                    os.close(output)  # the kernel holds its own copy now
                pid = getattr(self.provisioner, "pid", None)
                if isinstance(pid, int):
                    stop.started(pid)

        return ReportingKernelManager

    def started(self, pid: int) -> None:
        """The kernel runs as process ``pid`` (killed at once when the call was cancelled before); its
        process group is noted beside the run's directory."""
        with self._lock:
            self._pid = pid
            if self._run is not None and hasattr(os, "getpgid"):
                try:
                    group = os.getpgid(pid)
                except ProcessLookupError:  # already gone: nothing of it to find
                    group = os.getpgrp()
                if group != os.getpgrp():  # (its own group, as jupyter_client starts it: never the server's)
                    record_group(self._run, group)
            if self.stopped:
                _kill(pid)

    def stop(self) -> None:
        """Kill the kernel (now, or as soon as it starts). Safe from any thread; quick."""
        with self._lock:
            self.stopped = True
            if self._pid is not None:
                _kill(self._pid)

    def finished(self) -> None:
        """The run is over (its kernel shut down and waited for): its process id may be reused."""
        with self._lock:
            self._pid = None


def connection_file(run: Path) -> Path:
    """Where the kernel of the run whose directory is ``run`` has its connection file: beside that directory,
    in its process's folder (never in it: the notebook's files are stored from there)."""
    return run.parent / f"{run.name}-kernel.json"


def _kill(pid: int) -> None:
    try:
        if hasattr(os, "killpg"):
            group = os.getpgid(pid)
            if group != os.getpgrp():  # the kernel leads its own group (start_new_session): never the server's
                os.killpg(group, signal.SIGKILL)
                return
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def stop_on_cancel(ctx: Any, stop: KernelStop) -> Callable[[], None]:
    """Have ``stop`` kill the run's kernel when the call is cancelled; returns what ends the watch.

    In the server ``ctx.on_cancel`` says so at once. A job run in another process or on another
    machine has a ``ctx`` without it, whose ``is_cancelled()`` asks the server: a thread asks it
    every quarter second while the notebook runs (the executor ends the job's own process, not the
    kernel: it runs in a session of its own)."""
    on_cancel = getattr(ctx, "on_cancel", None)
    if on_cancel is not None:
        on_cancel(stop.stop)
        return lambda: None
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.25):
            if ctx.is_cancelled():
                stop.stop()
                return

    threading.Thread(target=watch, daemon=True, name="nanohubmcp-sim2l-cancel").start()
    return done.set
