"""One job in a process of its own: started for the job, answering through a pipe, and ended on cancel.

The ``processes`` executor (:mod:`.processes`) runs every job in a :class:`JobProcess`: a child
made with the platform's start method (``fork`` on Linux: a copy of the server taken when the
job starts, so a notebook's functions are the ones defined now). The child runs
:func:`.forked.forked_worker_setup`, then the function (:func:`.remote.run_remote`), and sends
``("value", v)`` or ``("error", exc)`` back through a one-way pipe; ahead of it, on the same pipe, the
``("progress", [progress, total, message])`` of its tqdm bars (:mod:`.job_progress`), which the waiting
thread hands to ``on_message`` as they come. A thread of the server forks
the child (the event loop does not stall for the fork: 12 to 20 ms on a loaded host) and waits for
its answer and its end.

Why not a pool of reused processes (``concurrent.futures.ProcessPoolExecutor``): a running call
cannot be taken back from it. Killing its worker marks the whole pool broken and fails every
other job it holds, and leaving it running holds a slot for as long as the function loops. A
process of its own is ended with its job and nothing else.

:meth:`JobProcess.stop` ends a job that was cancelled: a tool with a ``ctx`` first gets
:data:`STOP_GRACE_SECONDS` to see ``ctx.is_cancelled()`` and return, then ``SIGTERM`` (the
default action ends it; a handler of the tool's own may clean up), then ``SIGKILL`` after as
long again. The signals go to the job's process group: what the function started
(``subprocess``, ``multiprocessing``) ends with it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from multiprocessing.connection import wait
from typing import Any

from ...errors import ToolError
from .forked import forked_worker_setup
from .job_progress import relaying
from .remote import JobTrace, run_remote

log = logging.getLogger(__name__)

FORK_LOCK = threading.Lock()
"""Held around every fork of the executor (a job's process, the manager): a process forked while
a job's pipe is being made would inherit that pipe's sending end and hide the job's end."""

STOP_GRACE_SECONDS = 1.0
"""How long a cancelled job's process gets at each step (``ctx.is_cancelled()``, then
``SIGTERM``) before the next one (``SIGTERM``, then ``SIGKILL``)."""


class JobProcess:
    """A job's own process and the thread of the server that waits for its answer.

    Args:
        context: the ``multiprocessing`` context to start it with.
        name: the process's name (shown by ``ps`` with the ``fork`` method only as Python's).
        on_done: called once with this object (on the waiting thread) when the function is done
            with its slot: its answer arrived, or its process is gone without one.
        after_exit: called once (on the waiting thread) when the process has ended and was reaped, before
            :attr:`gone` is set: what it left behind is cleared then (an exception it raises is logged).
        on_message: called (on the waiting thread) with each ``(kind, payload)`` the function's process sent
            before its answer: ``("progress", [progress, total, message])`` of its tqdm bars.
    """

    def __init__(self, context: Any, name: str, on_done: Callable[[JobProcess], None],
                 after_exit: Callable[[], object] | None = None,
                 on_forked: Callable[[int], None] | None = None,
                 on_message: Callable[[str, list[Any]], None] | None = None) -> None:
        self._context = context
        self._name = name
        self._on_done = on_done
        self._after_exit = after_exit
        self._on_forked = on_forked
        self._on_message = on_message
        self._told = False
        self.future: Future[Any] = Future()
        self.ended = threading.Event()
        self.gone: Future[None] = Future()
        """Done once the process has ended and ``after_exit`` ran (at once when it could not be made)."""
        self.pid: int | None = None
        self.where: dict[str, Any] | None = None
        """Where the function ran, as its process said (``{"pid": ..., "thread": ...}``), once it answered."""
        self._forked = threading.Event()
        self._stopping = False

    def start(self, fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool,
              trace: JobTrace | None) -> Future[Any]:
        """Start ``fn(**kwargs)`` in a new process; the future gets its value or exception (an
        ``OSError`` when the process could not be made). Does not block: the process is forked
        by the waiting thread, so the caller's event loop does not stall for the fork."""
        threading.Thread(target=self._run, args=(fn, kwargs, is_coroutine, trace), daemon=True,
                         name=f"{self._name}-wait").start()
        return self.future

    def _fork(self, fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool,
              trace: JobTrace | None) -> tuple[Any, Any]:
        with FORK_LOCK:
            reader, writer = self._context.Pipe(duplex=False)
            process = self._context.Process(target=_job_main, args=(writer, fn, kwargs, is_coroutine, trace),
                                            name=self._name)
            try:
                process.start()
            except BaseException:
                reader.close()
                raise
            finally:
                writer.close()  # the sending end lives in the child alone
        return process, reader

    def stop(self, *, cooperative: bool) -> None:
        """End the process (a cancelled job), without blocking: ``cooperative`` (the job's cancel
        flag is set) first leaves it :data:`STOP_GRACE_SECONDS` to return by itself. Idempotent."""
        if self._stopping or self.ended.is_set():
            return
        self._stopping = True
        threading.Thread(target=self._signal, args=(cooperative,), daemon=True, name=f"{self._name}-stop").start()

    def _signal(self, cooperative: bool) -> None:
        self._forked.wait()  # a stop may come before the fork
        pid = self.pid
        if pid is None or (cooperative and self.ended.wait(STOP_GRACE_SECONDS)):
            return
        if not self._send(pid, signal.SIGTERM):
            return
        # Until the process and everything in its group are gone, or the grace is over.
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline:
            if not self.ended.is_set():
                self.ended.wait(0.05)
            elif self._send(pid, 0):
                time.sleep(0.05)
            else:
                return
        self._send(pid, signal.SIGKILL)

    def _send(self, pid: int, signum: int) -> bool:
        """Signal the job's process group; False when nothing is left to signal."""
        try:
            os.killpg(pid, signum)  # a group's id stays its own while it has members, its leader reaped or not
            return True
        except ProcessLookupError:
            pass
        if self.ended.is_set():  # reaped: its pid may be another process's now
            return False
        try:
            os.kill(pid, signum)  # not its own group yet
            return True
        except ProcessLookupError:
            return False

    def _run(self, fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool,
             trace: JobTrace | None) -> None:
        try:
            process, reader = self._fork(fn, kwargs, is_coroutine, trace)
        except Exception as exc:  # OSError: no memory, too many processes
            _resolve(self.future, ("error", exc))
            self.ended.set()
            self._forked.set()
            self._done()
            self.gone.set_result(None)
            return
        self.pid = process.pid
        if self._on_forked is not None:  # (before the function can answer: a cancel may end the job first)
            self._on_forked(process.pid)
        # Its own process group (set here and in the child, whichever runs first), so that a
        # stop also ends what the function started: a simulator run with ``subprocess``.
        with contextlib.suppress(OSError):
            os.setpgid(process.pid, process.pid)
        self._forked.set()
        self._wait(process, reader)

    def _wait(self, process: Any, reader: Any) -> None:
        try:
            try:
                answer = self._answer(process, reader)
            except EOFError:  # the process ended without answering (killed, or died)
                answer = None
            except Exception as exc:  # an answer that cannot be unpickled here
                answer = ("error", ToolError(f"the job's answer could not be read back from its process: {exc}"))
            finally:
                reader.close()
            if answer is not None:
                if len(answer) > 2 and isinstance(answer[2], dict):
                    self.where = answer[2]
                _resolve(self.future, answer)
                # The function is done: its slot is free while its process exits (the next job
                # need not wait for that). A function that left non-daemon threads behind would
                # keep its process: it gets a moment, then is ended.
                self._done()
                process.join(STOP_GRACE_SECONDS)
                if process.exitcode is None:
                    self.stop(cooperative=False)
            process.join()
            if answer is None:
                _resolve(self.future, ("error", ToolError(_died(process.exitcode))))
        finally:
            self.ended.set()
            self._done()
            self._cleared()

    def _answer(self, process: Any, reader: Any) -> tuple[Any, ...] | None:
        """The function's answer, the messages before it handed on; None: the process ended without one."""
        while True:
            # The process's end (its sentinel) too, not only the pipe's EOF: a process forked
            # elsewhere meanwhile may hold a copy of the sending end.
            wait([reader, process.sentinel])
            if not reader.poll(0):
                return None
            message = reader.recv()
            if message[0] in ANSWERS:
                return message
            if self._on_message is not None:
                self._on_message(*message)

    def _cleared(self) -> None:
        try:
            if self._after_exit is not None:
                self._after_exit()
        except Exception:  # (a clean-up that fails must not leave the stop waiting for this process)
            log.exception("after the process of %s ended: %r failed", self._name, self._after_exit)
        finally:
            self.gone.set_result(None)

    def _done(self) -> None:
        if not self._told:
            self._told = True
            self._on_done(self)


ANSWERS = ("value", "error")
"""The first member of the function's answer on the job's pipe (any other is a message before it)."""


class _PipeChannel:
    """The job's own pipe as its way back to the server (:class:`.job_progress.Sender`): a message ahead of its
    answer; one at a time (a bar may report from a thread of the function's)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.lock = threading.Lock()

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        with self.lock, contextlib.suppress(OSError, ValueError):  # (answered and closed: nobody reads it)
            self.writer.send((kind, payload))


def _resolve(future: Future[Any], answer: tuple[Any, ...]) -> None:
    kind, payload = answer[:2]
    with contextlib.suppress(InvalidStateError):  # cancelled meanwhile (the job was): nobody waits
        if kind == "value":
            future.set_result(payload)
        else:
            future.set_exception(payload)


def _died(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            how = f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"was killed by signal {-exitcode}"
    else:
        how = f"exited with code {exitcode}"
    return f"the job's process {how} before it answered"


def _job_main(writer: Any, fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool,
              trace: JobTrace | None) -> None:
    """The job's process: run the function, send its answer, end."""
    forked_worker_setup()
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    where = {"pid": os.getpid(), "thread": threading.current_thread().name}  # for the job's provenance record
    channel = _PipeChannel(writer)
    answer: tuple[str, Any, dict[str, Any]]
    try:
        with relaying(channel, ""):  # its tqdm bars: the job's progress (the pipe is the job's own: no id)
            answer = ("value", run_remote(fn, kwargs, is_coroutine, trace), where)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the job failed with them
        answer = ("error", exc, where)
    with channel.lock:
        try:
            writer.send(answer)
        except Exception as exc:  # the value (or the exception) cannot be pickled: nothing was written
            what = "result" if answer[0] == "value" else f"exception ({answer[1]!r})"
            writer.send(("error", ToolError(f"the job's {what} cannot be pickled back to the server ({exc})"), where))
        finally:
            writer.close()
