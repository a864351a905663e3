"""When a batch job's folder, and what is in it, goes: the executors' side of the job store's
:class:`~nanohubmcp.server.jobs.leftovers.Leftovers`.

A ``slurm`` or ``submit`` job's folder (:mod:`.job_files`) holds the call's inputs (submitit's
pickled function and arguments, ``<slurm id>_submitted.pkl``, with a ``Secret`` argument's value
in clear; ``submit``'s command line, ``submit.json``) and the result as the job left it
(``<slurm id>_0_result.pkl``). A restarted server needs them to take a running job back; nothing
needs them once the job's end is in the job store, and then they are removed (the executor's
``RUN_FILES``). The logs, ``events.jsonl`` and the files the job wrote stay as long as the job's
record can be read; the folder goes when the record expires (``job_ttl_seconds``). When the job
store opens, every job folder of a job it holds no record of (one whose record expired while no
server ran, a state directory from before) is removed — only folders marked as a job's
(:data:`.job_files.MARK`, or an earlier version's, known by the executor's ``SIGNS``).

The folders are looked for under the root of every folder executor the server uses: its own
``job_executor``, and each tool's with the tool's ``executor_options`` (``job_dir``).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..wire.owned_folders import warn_shared
from . import JOB_EXECUTOR, JOB_OPTIONS
from .job_files import MARK, FolderJobExecutor

if TYPE_CHECKING:
    from ..jobs.record import Job
    from ..registry.components import Tool
    from .runners import JobRunners

__all__ = ["FOLDER_EXECUTORS", "JobFolders", "run_files_bytes"]

FOLDER_EXECUTORS = ("slurm", "submit")
"""The built-in executors that keep a folder per job."""
_JOB_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}\Z")
"""A job id as the job store makes them (``secrets.token_urlsafe``): a folder of another name is never removed."""


class JobFolders:
    """The job folders of one server's executors (see the module docstring).

    Args:
        runners: the server's job executors.
        tools: its tools now (each names its executor and options in ``Tool.extra``).
    """

    def __init__(self, runners: JobRunners, tools: Callable[[], Iterable[Tool]]) -> None:
        self.runners = runners
        self.tools = tools

    def executors(self) -> list[FolderJobExecutor]:
        """The folder executors of the server and of its tools (each root once)."""
        found = [runner for runner in self.runners.made() if isinstance(runner, FolderJobExecutor)]
        default_keeps = isinstance(self.runners.default, FolderJobExecutor)
        for tool in self.tools():
            spec: Any = tool.extra.get(JOB_EXECUTOR)
            if spec in FOLDER_EXECUTORS or isinstance(spec, FolderJobExecutor) or (spec is None and default_keeps):
                runner = self.runners.runner_for(spec, tool.extra.get(JOB_OPTIONS))
                if isinstance(runner, FolderJobExecutor):
                    found.append(runner)
        by_root = {runner.root(): runner for runner in found}
        return list(by_root.values())

    def stored(self, job: Job) -> None:
        """``job``'s end is stored: remove its executor's ``RUN_FILES`` from its folder, and count its inputs no
        more against its caller's :mod:`.folder_budget`."""
        self.runners.folder_budget.release(job.id, job.owner_key())
        mine = [runner for runner in self.executors() if runner.name == job.executor]
        if not mine:
            return
        for folder in _folders_of(job, mine):
            for pattern in type(mine[0]).RUN_FILES:
                for path in folder.glob(pattern):
                    path.unlink(missing_ok=True)

    def purged(self, job_ids: Collection[str]) -> None:
        """The records of ``job_ids`` expired: remove their folders."""
        roots = [runner.root() for runner in self.executors()]
        for job_id in job_ids:
            if _JOB_ID.match(job_id):
                for root in roots:
                    if (root / job_id).is_dir():
                        shutil.rmtree(root / job_id, ignore_errors=True)

    def orphaned(self, known: Callable[[str], bool]) -> None:
        """Remove every job folder whose job ``known`` denies (the store holds no record of it). (Called as the job
        store opens: a ``job_dir`` others may write to without the sticky bit is warned of here, at start.)"""
        for runner in self.executors():
            root = runner.root()
            if not root.is_dir():
                continue
            warn_shared(root, f"{runner.name} job_dir")
            for folder in root.iterdir():
                if (
                    _JOB_ID.match(folder.name)
                    and folder.is_dir()
                    and not folder.is_symlink()
                    and _marked(folder, type(runner).SIGNS)
                    and not known(folder.name)
                ):
                    shutil.rmtree(folder, ignore_errors=True)


def run_files_bytes(job: Job, runner: FolderJobExecutor) -> int:
    """The bytes the ``RUN_FILES`` of ``runner`` (``job``'s executor) hold in ``job``'s folder now (0: none there)."""
    total = 0
    for folder in _folders_of(job, [runner]):
        for pattern in type(runner).RUN_FILES:
            for path in folder.glob(pattern):
                with contextlib.suppress(OSError):  # gone meanwhile: it holds nothing
                    total += path.stat().st_size
    return total


def _folders_of(job: Job, executors: list[FolderJobExecutor]) -> list[Path]:
    """``job``'s folder, as its executor stored it, else where each of ``executors`` would put it."""
    try:
        return [Path(json.loads(job.executor_ref or "")["folder"])]
    except (ValueError, KeyError, TypeError):  # no folder stored yet: the server died before sbatch answered
        return [runner.root() / job.id for runner in executors]


def _marked(folder: Path, signs: tuple[str, ...]) -> bool:
    """Whether ``folder`` is a job's folder: marked so, or holding a file only such folders hold."""
    return (folder / MARK).exists() or any(next(folder.glob(pattern), None) is not None for pattern in signs)
