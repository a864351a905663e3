"""``job_executor="slurm"``: every job is a Slurm batch job, submitted and collected with submitit.

A call of an ``@async_tool`` becomes one ``sbatch`` job (name ``mcp-<tool>``) that runs the tool
function on a compute node, in a Python process of its own; its folder
``<job_dir>/<job id>/`` (default ``<state dir>/slurm-jobs/``; it must be on a filesystem the
compute nodes share) is the job's working directory and holds submitit's files (the pickled
call, the result, ``<slurm id>_0_log.out``/``.err``) and the job's channel back (see
:mod:`.job_files`). The pickled call (a ``Secret`` argument's value in it) and result are removed once
the job's end is stored (a cancelled job's result written later, once Slurm says the job ended), the
folder when the job's record expires (:mod:`.job_folders`).

While the job lives, the client sees it move, as log messages (``notifications/message``, level
info) and in the task's ``_meta`` (``org.nanohub/slurm``: ``job_id``, ``state``, ``reason``,
``node``): queued with its Slurm job id and the scheduler's reason, running on a node, ended.
``ctx.report_progress``, ``ctx.info`` (and the other log methods) and tqdm bars in the job reach
the client while it runs. Cancelling the call (``tasks/cancel``, ``notifications/cancelled``)
tells the job (``ctx.is_cancelled()``) and runs ``scancel``: the Slurm job ends ``CANCELLED``, and
the task's metadata says so (Slurm is looked at once more, until the job ended).
An ``sbatch`` the controller does not answer fails the call saying so: temporary, call again later
(:func:`.slurm_reasons.sbatch_failed_message`; not retried: sbatch retries the connection itself, and a timed-out
answer may hide a queued job). A job ``squeue``/``sacct`` cannot be asked about is as last seen (:mod:`.slurm_watch`).
A job Slurm holds with a reason that means it can never start as asked
(:data:`.slurm_reasons.NEVER_STARTS`: more CPUs or memory than its partition has, ``PartitionConfig``;
a time limit over the partition's) is ``scancel``ed and fails saying what to change; any other reason
leaves it queued, the reason in its status message (``get_job_result``: ``"queued": true``).
A job Slurm ends itself fails with a message naming why — time limit (``TIMEOUT``), out of memory
(``OUT_OF_MEMORY``, also a ``FAILED`` job whose step ran out of memory), node failure (``NODE_FAIL``),
... — and the tail of its stderr. Slurm checks time limits about every 30 s, so a job runs up to
that long past its ``time``. What each end state and pending reason means, and the messages saying
so, are :mod:`.slurm_reasons`'s.

The job outlives the server: a server restarted with the same state directory takes each
unfinished job back by its folder and Slurm job id, and stores its result (also when the job
ended while no server ran).

Options (``executor_options=`` of the server or of one tool; ``%%mcp_tool --slurm-time ...``):
``partition``, ``time`` (Slurm's forms: ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``,
``D-H:M:S``; rounded up to whole minutes), ``cpus_per_task``, ``mem`` (``4G``, ``500M``),
``gpus``, ``account``, ``qos``, ``sbatch`` (more ``sbatch`` options, ``{"constraint": "haswell",
"exclusive": True}``), ``setup`` (shell lines run before the job, e.g. ``module load``),
``job_dir``, ``python`` (the Python command on the nodes; default the server's interpreter) and
``poll_interval`` (seconds between ``squeue`` looks, default 1, at least 1). The table and the checks of their
values are :mod:`.slurm_options`'s.

The tool function and its arguments are pickled with cloudpickle (a function defined in a script
or notebook travels by value); the nodes need this package and the tool's imports in that Python.
submitit is imported when the first job is submitted (``pip install 'nanohub-mcp[slurm]'``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import ConfigurationError, ToolError
from ...protocol.result_types import ToolResult
from ..wire.owned_folders import FolderKey, folder_key, read_owned
from ..wire.run_environment import sbatch_export
from .base import Place, ran_away
from .job_files import (
    EventTail,
    FileChannel,
    FolderJobExecutor,
    file_blocks,
    make_job_folder,
    request_cancel,
    tail,
)
from .job_side import RAISED, run_in_job
from .remote import job_trace, remote_context
from .slurm_announce import announce, announce_run, announce_silence, publish, raised_note
from .slurm_options import OPTIONS, check_values
from .slurm_reasons import (
    LOG_PREFIXES,
    NEVER_STARTS,
    ended_message,
    never_message,
    sbatch_failed_message,
    stderr_note,
    unpicklable_message,
)
from .slurm_watch import (
    ENDED,
    QUEUED,
    SlurmState,
    cancel_and_look,
    exit_code,
    last_lines,
    look_once,
    ran_out_of_memory,
    watcher,
)

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job

log = logging.getLogger("nanohubmcp.jobs")

RESULT_GRACE_SECONDS = 10.0
"""How long a job Slurm reports COMPLETED may take to show its result file (shared filesystems lag)."""
FILE_POLL_SECONDS = 0.25
WARNING_SECONDS = 60
"""Seconds before its time limit a job is warned (``--signal``), for limits of five minutes or more."""


def _submitit() -> Any:
    try:
        import submitit
    except ImportError:
        raise ConfigurationError("job_executor='slurm' needs submitit: pip install 'nanohub-mcp[slurm]'") from None
    return submitit


class SlurmJobExecutor(FolderJobExecutor):
    """Jobs as Slurm batch jobs (see the module docstring)."""

    name = "slurm"
    OPTIONS: ClassVar[dict[str, str]] = OPTIONS
    # submitit's pickled call and result (and a result it failed to write, the tool's value unpicklable)
    RUN_FILES: ClassVar[tuple[str, ...]] = ("*_submitted.pkl", "*_result.pkl", "*_result.pkl.save_tmp")
    SIGNS: ClassVar[tuple[str, ...]] = ("*_submission.sh",)

    def check(self, options: dict[str, Any]) -> dict[str, Any]:
        return check_values(super().check(options))

    # -- submitting ---------------------------------------------------------------------------
    def parameters(self, job: Job, folder: Path) -> dict[str, Any]:
        """submitit's parameters for ``job`` (sbatch options and the job's working directory)."""
        extra: dict[str, Any] = {"chdir": str(folder), "export": sbatch_export()}  # not the server's secrets
        for key in ("mem", "gpus"):
            if key in self.options:
                extra[key] = self.options[key]
        extra.update(self.options.get("sbatch") or {})
        params: dict[str, Any] = {"job_name": f"mcp-{job.tool}", "signal_delay_s": self.warning_delay(),
                                  "additional_parameters": extra}
        for key in ("partition", "time", "cpus_per_task", "account", "qos", "setup"):
            if key in self.options:
                params[key] = list(self.options[key]) if key == "setup" else self.options[key]
        return params

    def warning_delay(self) -> int:
        """Seconds before the time limit the job is warned (``--signal``): a minute, at most a fifth
        of a limit shorter than five minutes."""
        minutes = self.options.get("time")
        return min(WARNING_SECONDS, int(minutes) * 60 // 5) if isinstance(minutes, int) else WARNING_SECONDS

    def _submit(
        self, folder: Path, job: Job, fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool
    ) -> str:
        submitit = _submitit()
        _send_by_value(fn)
        try:
            executor = submitit.SlurmExecutor(folder=folder, python=self.options.get("python"))
            executor.update_parameters(**self.parameters(job, folder))
        except (RuntimeError, ValueError) as exc:  # no srun here; a parameter submitit refuses
            raise ToolError(f"cannot submit to Slurm: {exc}") from None
        try:
            minutes = self.options.get("time")
            warn_after = minutes * 60 - self.warning_delay() if isinstance(minutes, int) else None
            submitted = executor.submit(run_in_job, fn, kwargs, is_coroutine, str(folder), job.id,
                                        job_trace(job), warn_after)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise ToolError(
                f"tool '{job.tool}' cannot be sent to Slurm: its function or arguments cannot be pickled ({exc})"
            ) from None
        except Exception as exc:  # sbatch failed (submitit raises its own error with sbatch's stderr)
            raise ToolError(sbatch_failed_message(last_lines(str(exc)), job.tool)) from None
        return str(submitted.job_id)

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
        loop = asyncio.get_running_loop()
        folder = await loop.run_in_executor(None, make_job_folder, self.root(), job.id)
        key = folder_key(folder)  # what the folder must still be whenever the server reads from it
        if context_param:
            kwargs = {**kwargs, context_param: remote_context(job, context, FileChannel(folder), self.name)}
        slurm_id = await loop.run_in_executor(None, self._submit, folder, job, fn, kwargs, is_coroutine)
        if job.store is not None:
            job.store.set_executor_ref(
                job, json.dumps({"folder": str(folder), "slurm_job_id": slurm_id, "folder_key": list(key)})
            )
        return await self._follow(folder, slurm_id, job, context, key, submitted=True)

    # -- after a restart ----------------------------------------------------------------------
    def reattach(self, job: Job) -> Any:
        found = self._find(job)
        if found is None:
            return None
        folder, slurm_id, key = found
        return self._follow(folder, slurm_id, job, None, key)

    def _find(self, job: Job) -> tuple[Path, str, FolderKey | None] | None:
        """``job``'s folder, Slurm job id and the folder's identity when it was made (None: a job of an earlier
        version, or one whose reference was never stored)."""
        try:
            ref = json.loads(job.executor_ref or "")
            recorded = ref.get("folder_key")
            key = (int(recorded[0]), int(recorded[1])) if recorded is not None else None
            return Path(ref["folder"]), str(ref["slurm_job_id"]), key
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            pass  # the server died between sbatch and storing the id: look in the folder
        folder = self.root() / job.id
        submitted = sorted(folder.glob("*_submitted.pkl"))
        if not submitted:
            return None
        return folder, submitted[0].name.split("_", 1)[0], None

    # -- following a job ----------------------------------------------------------------------
    async def _follow(
        self,
        folder: Path,
        slurm_id: str,
        job: Job,
        context: Context | None,
        key: FolderKey | None,
        submitted: bool = False,
    ) -> Any:
        # On a node: the record names it and the Slurm job id (task metadata), and the host, pid and
        # thread the job answers with its value; until then (or when it never answers) only them.
        job.where = ran_away()
        events = EventTail(folder, job.id, context, job.store)
        result = folder / f"{slurm_id}_0_result.pkl"
        states = watcher(float(self.options.get("poll_interval", 1.0)))
        states.add(slurm_id)
        told: tuple[str, str, str] | None = None
        if submitted:  # sbatch accepted it: queued now, whether or not a look sees it waiting
            announce(context, job, slurm_id, SlurmState("PENDING", "", ""), None)
            told = (QUEUED, "", "")
        ended_at: float | None = None
        silence = ""  # what Slurm's last unanswered look said, as told to the client
        loop = asyncio.get_running_loop()
        try:
            while True:
                try:  # before anything is read: the folder is still the one made, its user's alone
                    found = await loop.run_in_executor(None, _load, folder, result.name, key)
                except ToolError:  # replaced: the job, not started yet, would run the other's pickled call
                    await loop.run_in_executor(None, states.cancel, slurm_id)
                    raise
                await loop.run_in_executor(None, events)
                if found is not None:
                    outcome = found
                    job.where = ran_away(_place_of(outcome))
                    await loop.run_in_executor(None, events)
                    seen = states.get(slurm_id)
                    node = seen.node if seen is not None else ""
                    if not node:  # it started and ended between two looks: Slurm knows where it ran
                        seen = await loop.run_in_executor(None, look_once, slurm_id)
                        node = seen.node if seen is not None else ""
                    told = announce_run(context, job, slurm_id, node, told)
                    announce(context, job, slurm_id, SlurmState("COMPLETED", "", node), told, raised_note(outcome))
                    return _value_of(outcome, slurm_id, folder, self.max_returned_bytes)
                state = states.get(slurm_id)
                if states.unanswered != silence:  # Slurm stopped (or started again) answering: the job is as seen
                    silence = states.unanswered
                    if silence:
                        announce_silence(context, job, slurm_id, state, silence)
                    elif state is not None and state.kind != ENDED:  # (an end is said below)
                        announce(context, job, slurm_id, state, told)
                if state is not None:
                    if state.kind == ENDED:  # it ran (if it has a node) even when no look saw it running
                        told = announce_run(context, job, slurm_id, state.node, told)
                    now = (state.kind, state.reason, state.node)
                    if now != told and not (state.kind == ENDED and state.state == "COMPLETED"):  # (said with
                        # the tool's outcome once its result is read: above, or the grace's error below)
                        announce(context, job, slurm_id, state, told)
                        told = now
                    if state.kind == QUEUED and state.reason in NEVER_STARTS:
                        last, said = await loop.run_in_executor(None, cancel_and_look, states, slurm_id, result)
                        if last is not None:
                            publish(context, job, slurm_id, last)
                        raise ToolError(never_message(slurm_id, state.reason, self.options, said))
                    if state.kind == ENDED and state.state != "COMPLETED":
                        if result.exists():  # written between the two looks: it says more than the state
                            continue
                        await loop.run_in_executor(None, events)
                        if state.state == "FAILED" and result.with_name(result.name + ".save_tmp").exists():
                            raise ToolError(unpicklable_message(slurm_id, folder))  # left by a failed dump
                        if state.state == "FAILED" and await loop.run_in_executor(
                            None, ran_out_of_memory, slurm_id, tail(folder / f"{slurm_id}_0_log.err")
                        ):
                            state = replace(state, state="OUT_OF_MEMORY")  # its step did (submitit's srun)
                        if not state.exit_code:  # squeue gives none: the accounting database has it
                            state = replace(state, exit_code=await loop.run_in_executor(None, exit_code, slurm_id))
                        raise ToolError(ended_message(slurm_id, state, folder, self.options))
                    if state.kind == ENDED:
                        ended_at = ended_at or loop.time()
                        if loop.time() - ended_at > RESULT_GRACE_SECONDS:
                            raise ToolError(ended_message(slurm_id, state, folder, self.options))
                await asyncio.sleep(FILE_POLL_SECONDS)
        except asyncio.CancelledError:
            if not job.abandoned:  # cancelled by the client, not left behind by a stopping server
                request_cancel(folder)
                seen = states.get(slurm_id)
                last, said = await loop.run_in_executor(None, cancel_and_look, states, slurm_id, result)
                fallback = SlurmState("CANCELLED", "", told[2] if told else "")
                if said:  # not answered, tried again (cancel_and_look): Slurm's state as last seen, not CANCELLED
                    log.warning("the scancel of Slurm job %s was not answered (%s): it is tried again", slurm_id, said)
                    fallback = seen or replace(fallback, state="UNKNOWN")
                publish(context, job, slurm_id, last or fallback)
                if job.store is not None:
                    job.store.note(job)  # the cancelled job's record: its metadata as it is now
            raise
        finally:
            states.discard(slurm_id)


def _send_by_value(fn: Callable[..., Any]) -> None:
    """Have cloudpickle send ``fn``'s module by value when the node could not import it by name:
    a script run as a module (``start_mcp``), a file beside the server. Installed packages (and
    this one) go by reference, as do ``__main__`` functions, which cloudpickle sends by value."""
    import cloudpickle  # type: ignore[import-untyped]  # comes with submitit

    name = getattr(fn, "__module__", None) or ""
    module = sys.modules.get(name)
    if module is None or name == "__main__" or name.partition(".")[0] == "nanohubmcp":
        return
    path = Path(getattr(module, "__file__", None) or "")
    installed = {"site-packages", "dist-packages"} & set(path.parts)
    if not path.parts or installed or str(path).startswith(sysconfig.get_paths()["stdlib"]):
        return
    cloudpickle.register_pickle_by_value(module)


def _load(folder: Path, name: str, key: FolderKey | None) -> Any:
    """submitit's result file ``name``, unpickled (None while there is none), read only from ``folder`` as it was
    made: the server's user's alone, the same inode (:func:`~..wire.owned_folders.read_owned`).

    Raises:
        ToolError: the folder was replaced, or is not the server's user's alone, or the file is not its user's.
    """
    data = read_owned(folder, name, key)
    return None if data is None else pickle.loads(data)  # written by our own job (it checked out above)


def _place_of(outcome: tuple[str, Any]) -> Place | None:
    """Where the function ran, from submitit's result file: the third item of what
    :func:`.job_side.run_in_job` answered (None from a job of an earlier version, which answered two,
    and from submitit's own failure)."""
    status, payload = outcome
    if status == "success" and len(payload) == 3:
        host, pid, thread = payload[2]
        return host, pid, thread
    return None


def _value_of(outcome: tuple[str, Any], slurm_id: str, folder: Path, limit: int | None = None) -> Any:
    """The function's value from submitit's result file; what it raised becomes a ToolError."""
    status, payload = outcome
    if status == "success":
        kind, value = payload[:2]  # a third item, where it ran, from this version's jobs (_place_of)
        if kind == RAISED:
            raise ToolError(value)
        return files_returned(value, folder, limit)
    # submitit's own failure around the function (e.g. the call could not be unpickled on the node)
    last = [line for line in str(payload).splitlines() if line.strip()][-1:] or ["no message"]
    stderr = tail(folder / f"{slurm_id}_0_log.err", skip=LOG_PREFIXES)
    raise ToolError(f"Slurm job {slurm_id} could not run the tool: {last[0]}" + stderr_note(stderr))


def files_returned(value: Any, folder: Path, limit: int | None = None) -> Any:
    """A path (or a list of paths) the job returned, as the files' content: one embedded resource
    each, kept and linked by the server when larger than ``max_inline_bytes``. The files must be in
    the job's folder (relative paths are read there). Any other value is returned as it is.
    ``limit``: the most bytes of files returned (:func:`.job_files.file_blocks`).

    Raises:
        ToolError: a file outside the job's folder, or one that is not there; more than ``limit`` bytes in all.
    """
    paths = value if isinstance(value, (list, tuple)) and value else [value]
    if not all(isinstance(p, PurePath) for p in paths):
        return value
    found = [(folder / p).resolve() for p in paths]
    outside = [str(p) for p in found if not p.is_relative_to(folder.resolve())]
    if outside:
        raise ToolError(f"the job returned files outside its folder {folder}: {', '.join(outside)}")
    missing = [str(p) for p in found if not p.is_file()]
    if missing:
        raise ToolError(f"the job returned files that are not there: {', '.join(missing)}")
    names = [str(p) for p in paths]
    return ToolResult(
        [{"type": "text", "text": f"files: {', '.join(names)}"}, *file_blocks(found, limit)],
        structured_content={"files": names},
    )
