"""The server's job executors: the default one, and those its tools name, made at their first use.

Owns :class:`JobRunners`: the executor ``MCPServer(job_executor=...)`` names, one per other
executor a tool names (``executor=``), one per distinct set of a tool's ``executor_options`` over
the server's, and which of the server's ``executor_options`` go to which executor. What an
executor is and does is :mod:`nanohubmcp.server.executors`'; starting, polling and re-attaching
jobs is the job service's (:mod:`.service`), which reaches these through the core.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError
from ..results import DEFAULT_STORE_BYTES, DEFAULT_STORE_BYTES_PER_OWNER
from . import EXECUTORS, JobExecutor, make_executor
from .folder_budget import FolderBudget, shared_charges

if TYPE_CHECKING:
    from ...state import StateURL
    from ..jobs.record import Job

__all__ = ["JobRunners"]


class JobRunners:
    """The job executors of one server, kept until it closes.

    Args:
        job_executor: the server's executor: a name of ``EXECUTORS`` or a :class:`JobExecutor`.
        workers: threads or processes of an executor that pools them (``job_workers``).
        dask_address: the Dask scheduler for ``"dask"`` (None: ``DASK_SCHEDULER_ADDRESS``, else a local cluster).
        executor_options: ``{"slurm": {...}, "submit": {...}}`` by executor name; options at the top
            level are for ``job_executor``.
        state_dir: the server's state directory (a function: resolved when an executor needs it).
        folder_bytes_per_owner: most bytes of inputs one caller's not-yet-ended batch (folder) jobs keep
            (``max_kept_bytes_per_owner``: :mod:`.folder_budget`).
        state: the server's ``state_url``, name and ``state_secret`` (or None): with a shared store (Redis) the folder
            budget is counted there for every process of the server (:func:`.folder_budget.shared_charges`); None:
            this process's.
        returned_bytes: most bytes of files one batch (folder) job returns (``max_kept_bytes``, the largest result
            the server keeps: :attr:`~.base.JobExecutor.max_returned_bytes`).

    Raises:
        ConfigurationError: ``executor_options`` is not a dict, or an executor refuses its options.
    """

    def __init__(
        self,
        job_executor: str | JobExecutor,
        *,
        workers: int,
        dask_address: str | None,
        executor_options: dict[str, Any] | None,
        state_dir: Callable[[], str],
        folder_bytes_per_owner: int = DEFAULT_STORE_BYTES_PER_OWNER,
        state: tuple[StateURL, str, str | bytes | None] | None = None,
        returned_bytes: int = DEFAULT_STORE_BYTES,
    ) -> None:
        self.workers = workers
        self.returned_bytes = returned_bytes
        self.folder_budget = FolderBudget(folder_bytes_per_owner, shared_charges(*state) if state else None)
        """The bytes of inputs each caller's not-yet-ended folder jobs hold (:mod:`.folder_budget`)."""
        self.dask_address = dask_address
        if executor_options is not None and not isinstance(executor_options, dict):
            raise ConfigurationError("executor_options must be a dict, e.g. {'slurm': {'partition': 'debug'}}")
        self.executor_options = dict(executor_options or {})
        default = job_executor.name if isinstance(job_executor, JobExecutor) else (job_executor or "threads")
        self._default_executor = default
        self._state_dir = state_dir
        self.default = self._bounded(make_executor(job_executor, workers=workers, dask_address=dask_address,
                                                   options=self.options_for(default), state_dir=state_dir))
        """The server's ``job_executor``."""
        self._job_runners: dict[Any, JobExecutor] = {self.default.name: self.default}

    def options_for(self, name: str) -> dict[str, Any]:
        """The server's ``executor_options`` for the executor ``name``."""
        named = {key: value for key, value in self.executor_options.items() if key in EXECUTORS}
        for key, value in named.items():
            if not isinstance(value, dict):
                raise ConfigurationError(_not_a_section(key, value))
        mine = dict(named.get(name) or {})
        if name == self._default_executor:
            top = {key: value for key, value in self.executor_options.items() if key not in EXECUTORS}
            mine = {**top, **mine}
        return mine

    def runner_for(self, spec: str | JobExecutor | None = None, options: dict[str, Any] | None = None) -> JobExecutor:
        """The job executor named ``spec`` (a tool's ``executor=``; None: the server's
        ``job_executor``) with a tool's ``options`` over the server's, made on first use and
        kept until the server closes.

        Raises:
            ConfigurationError: an unknown executor or an option it does not take.
        """
        if spec is None:
            base = self.default
        elif isinstance(spec, JobExecutor):
            base = self._job_runners.setdefault(spec.name, self._bounded(spec))
        else:
            if spec not in self._job_runners:
                self._job_runners[spec] = self._bounded(make_executor(
                    spec, workers=self.workers, dask_address=self.dask_address,
                    options=self.options_for(spec), state_dir=self._state_dir))
            base = self._job_runners[spec]
        if not options:
            return base
        key = (base.name, json.dumps(options, sort_keys=True, default=str))
        if key not in self._job_runners:
            self._job_runners[key] = base.configure(options)
        return self._job_runners[key]

    def _bounded(self, runner: JobExecutor) -> JobExecutor:
        """``runner``, its jobs returning at most :attr:`returned_bytes` of files (a batch executor's; those it
        configures for a tool's options keep the bound)."""
        runner.max_returned_bytes = self.returned_bytes
        return runner

    def made(self) -> list[JobExecutor]:
        """Every executor made so far (the server's first)."""
        return list(dict.fromkeys(self._job_runners.values()))

    def holds_after_restart(self, job: Job) -> bool:
        """Whether the executor of ``job``, a job of a dead server process, may still hold it (Dask)."""
        known = job.executor in self._job_runners or job.executor in EXECUTORS
        return known and self.runner_for(job.executor).survives_restart

    def outliving(self, job: Job) -> Future[Any] | None:
        """The future of ``job``'s function when it runs on in this process after the server stops."""
        runner = self._job_runners.get(job.executor)
        return runner.outliving(job) if runner is not None else None

    def running_here(self) -> set[Future[Any]]:
        """The futures of every job function running in this process now (:meth:`JobExecutor.running_here`)."""
        return {work for runner in self.made() for work in runner.running_here()}

    def carry_on(self, job: Job) -> Awaitable[Any] | None:
        """An awaitable of ``job``'s value to await on another event loop (:meth:`JobExecutor.carry_on`), else None."""
        runner = self._job_runners.get(job.executor)
        return runner.carry_on(job) if runner is not None else None

    def ending(self) -> list[Future[None]]:
        """What of every executor's work still ends in this process (:meth:`JobExecutor.ending`)."""
        return [future for runner in self.made() for future in runner.ending()]

    def close(self) -> None:
        """Close every executor made (the server closes)."""
        for runner in self._job_runners.values():
            runner.close()


def _not_a_section(key: str, value: Any) -> str:
    """The refusal of ``executor_options[key] = value`` that is not a dict, ``key`` naming an executor; it
    shows the form that works, as the ``submit`` executor's ``submit`` option (the command's path) takes
    the same key as the executor's name."""
    text = f"executor_options[{key!r}] names the {key!r} executor, so it must be a dict of its options"
    if key == "submit":  # the one executor with an option of its own name (submit_run.OPTIONS)
        text += (f"; to give that executor's own {key!r} option, nest it: executor_options={{{key!r}: "
                 f"{{{key!r}: {value!r}}}}}")
    return text
