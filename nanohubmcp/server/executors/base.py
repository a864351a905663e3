"""The job executor interface (:class:`JobExecutor`), apart from the executors that implement it,
so each of them imports the interface without importing the package that picks among them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import ConfigurationError

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job


Place = tuple[str, int, str]
"""Where a job's function ran, as its wrapper there sends it back with the value: ``(host name,
pid, thread name)`` (``remote.place()``)."""


def ran_away(place: Place | None = None, **own: Any) -> dict[str, Any]:
    """A job's ``where`` (``Job.where``) when its function ran outside the server's process (a
    Slurm node, a hub's submit, a Dask worker): ``host``, ``pid`` and ``thread`` from ``place``,
    which the job sent back with its value — None when it sent none (a job of an earlier version,
    one that failed before it answered): the server's own did not run it — with what ``own`` says
    of the place (``dask_worker=``...).

    .. versionchanged:: 1.0
       ``place``: a Dask or Slurm job's record names the worker's or node's host, pid and thread.
    """
    host, pid, thread = place if place is not None else (None, None, None)
    return {"host": host, "pid": pid, "thread": thread, **own}


class JobExecutor:
    """Runs job functions somewhere. Subclass it for a new place to run jobs.

    Attributes:
        name: short name shown in ``%mcp jobs`` and stored with each job.
        survives_restart: True when a job keeps running without the server process (then the
            job's ``executor_ref`` is stored and :meth:`reattach` is asked after a restart).
    """

    name = "custom"
    survives_restart = False
    OPTIONS: ClassVar[dict[str, str]] = {}
    """The ``executor_options`` this executor takes: option name -> what it sets."""
    max_returned_bytes: int | None = None
    """The most bytes of files one job may return, for an executor whose jobs return the files they wrote (the
    batch executors: :func:`.job_files.file_blocks`): the server's ``max_kept_bytes``, set when the server makes
    (or is given) the executor; None: the executor's own default."""

    def configure(self, options: dict[str, Any]) -> JobExecutor:
        """This executor with ``options`` (``executor_options`` of a server or a tool) applied
        over its own: ``self`` when there are none, else a new executor.

        Raises:
            ConfigurationError: an option this executor does not take.
        """
        if options:
            raise ConfigurationError(
                f"the {self.name!r} job executor takes no executor_options (got {', '.join(sorted(options))})"
            )
        return self

    async def call(
        self,
        job: Job,
        fn: Callable[..., Any],
        kwargs: dict[str, Any],
        *,
        context: Context | None,
        context_param: str | None,
        is_coroutine: bool,
    ) -> Any:
        """Run ``fn(**kwargs)`` for ``job`` and return its value (raise what it raised).

        ``kwargs[context_param]`` is the call's Context when the function takes one. When the
        server traces, ``job.trace_context`` is the W3C carrier of the job's run span: pass
        ``remote.job_trace(job)`` along with the function to ``remote.run_remote`` (or
        ``job_side.run_in_job``) where it runs, and the trace goes on there. When the
        job is cancelled, the awaiting task is cancelled (and ``context.is_cancelled()`` turns
        true): stop the work and let ``asyncio.CancelledError`` through. Set ``job.where`` to
        where the function ran (see ``Job.where``; :func:`ran_away` off the server's process
        and machine), else the job's provenance record names the thread that served the call.
        """
        raise NotImplementedError

    def reattach(self, job: Job) -> Any:
        """Take back a job whose server process died: return an awaitable of the function's
        value, or None when this executor no longer holds it."""
        return None

    def carry_on(self, job: Job) -> Awaitable[Any] | None:
        """Follow ``job`` from another event loop than the one that started it: an awaitable of its
        function's value (raising what it raised; cancelling it cancels the job) to await on that loop,
        or None (the default) when the job's work cannot be followed there. Asked when the event loop of a
        testing client that started the job ends while the server serves on its own (``in_memory``,
        ``MemoryClient``); the awaitable the job's first task awaited then gives way to the new one,
        leaving the job running. An executor whose work runs off that loop, followed by machinery of its
        own (a Dask client's loop), returns one.

        .. versionadded:: 1.0
        """
        return None

    def outliving(self, job: Job) -> Future[Any] | None:
        """The future of ``job``'s function while it runs in this process and goes on when the
        server stops (a thread pool's worker), else None: the stopping server hands the job over
        to it instead of failing it."""
        return None

    def running_here(self) -> set[Future[Any]]:
        """The futures of the job functions running in this process now (a thread pool's workers), whether or not
        their client cancelled the job (a function that does not look runs on): what of the process's pool work is
        a job's, not a tool call's. Empty by default."""
        return set()

    def ending(self) -> list[Future[None]]:
        """What of this executor's work still ends in this process after :meth:`close` (a job's process and
        the clean-ups after it): a process that exits waits for these, within its exit grace. None by default."""
        return []

    def close(self) -> None:
        """Stop (the server stopped). May be started again by the next :meth:`call`."""
