"""``job_executor="submit"``: jobs run with nanoHUB's ``submit`` command, on a venue or ``--local``.

A ``submit`` tool describes the run instead of doing it: its function (run in the server, on a
worker thread) returns a :class:`~.submit_run.SubmitRun` — the command, a parameter sweep, input
files, environment — or just the command (a list or a string). The executor then runs
``submit --progress submit ...`` (see :mod:`.submit_run` for the command line) in the job's own
folder ``<job_dir>/<job id>/`` (default ``<state dir>/submit-jobs/``), and:

- turns each ``=SUBMIT-PROGRESS=>`` line into MCP progress (``%done`` of 100, with a message
  counting finished, executing, waiting and failed runs);
- answers with what the run left: for one run its stdout and the files it wrote, for a sweep one
  entry per combination (its parameters, status, stdout, files) — as structured content, with
  each file as an embedded resource (a file larger than ``max_inline_bytes`` becomes a
  ``resource_link``);
- fails, when ``submit`` fails or every run of it failed, with a message naming the failed
  runs and the end of their stderr;
- on cancel, stops the ``submit`` client the way an interrupt does (SIGTERM to its process
  group; the hub's client then kills its remote runs), SIGKILL after a few seconds.

The ``submit`` client runs in a session of its own with its output in the folder, so it goes on
when the server dies; a server restarted with the same state directory takes the job back and
collects its result. Its command line (``submit.json``) is removed once the job's end is stored, the
folder when the job's record expires (:mod:`.job_folders`). Options (``executor_options=``,
``%%mcp_tool --submit-venue ...``) are listed in ``OPTIONS`` (venue, cores, ppn, walltime, local,
manager, env, inputs, outputs, extra, submit, job_dir, poll_interval); a ``SubmitRun``'s own values win.

Source: HUBzero documentation, tool developers, "Submit command".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import ConfigurationError, ToolError
from ...protocol.result_types import ToolResult
from ..wire.owned_folders import FolderKey, check_folder, folder_key, read_owned
from ..wire.run_environment import run_environment
from .job_files import MARK, FolderJobExecutor, file_blocks, make_job_folder, tail
from .submit_run import OPTIONS, RUN_NAME, SubmitRun, check_values, combinations, command_line, parse_progress

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job

OWN_FILES = {
    "submit.out",
    "submit.err",
    "exit_status",
    "submit.json",
    "pid",
    "events.jsonl",
    "cancel",
    MARK,
    f"{RUN_NAME}.stdout",
    f"{RUN_NAME}.stderr",
}
MAX_FILES = 100
STDOUT_CHARS = 4000
STOP_GRACE_SECONDS = 5.0
# Runs the client in a session of its own (it outlives the server) and records its exit status.
WRAPPER = '"$@" > submit.out 2> submit.err; echo $? > exit_status'


class SubmitJobExecutor(FolderJobExecutor):
    """Jobs run with nanoHUB's ``submit`` (see the module docstring)."""

    name = "submit"
    OPTIONS: ClassVar[dict[str, str]] = OPTIONS
    # The command line (its -e values). Not "pid": a cancelled job ends at once, and its stop reads it after.
    RUN_FILES: ClassVar[tuple[str, ...]] = ("submit.json",)
    SIGNS: ClassVar[tuple[str, ...]] = ("submit.json", "submit.out")

    def check(self, options: dict[str, Any]) -> dict[str, Any]:
        check_values(super().check(options), "submit option")
        return options

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

        def describe() -> Any:  # the job's record names this thread: the server's, running the function
            job.where = {"thread": threading.current_thread().name}
            return fn(**kwargs)

        spec = await fn(**kwargs) if is_coroutine else await loop.run_in_executor(None, describe)
        run = as_run(spec, job.tool)
        try:
            argv = command_line(run, self.options, Path.cwd())
        except ConfigurationError as exc:
            raise ToolError(str(exc)) from None
        folder = await loop.run_in_executor(None, make_job_folder, self.root(), job.id)
        key = folder_key(folder)  # what the folder must still be whenever the server reads from it
        plan = {
            "folder": str(folder),
            "sweep": bool(run.parameters),
            "outputs": list(run.outputs or self.options.get("outputs") or []),
            "argv": argv,
        }
        (folder / "submit.json").write_text(json.dumps(plan))
        try:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", WRAPPER, "sh", *argv],
                cwd=folder,
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=run_environment(),  # not the server's token, Redis URL or weber cookie
            )
        except OSError as exc:
            raise ToolError(f"cannot start submit: {exc}") from None
        (folder / "pid").write_text(str(proc.pid))
        if job.store is not None:
            job.store.set_executor_ref(job, json.dumps({"folder": str(folder), "folder_key": list(key)}))
        if context is not None:
            context.info(f"submit started: {' '.join(argv[4:])}")
        return await self._follow(folder, plan, job, context, proc, key)

    def reattach(self, job: Job) -> Any:
        key: FolderKey | None = None
        try:
            ref = json.loads(job.executor_ref or "")
            folder = Path(ref["folder"])
            if ref.get("folder_key") is not None:  # (none from an earlier version)
                key = (int(ref["folder_key"][0]), int(ref["folder_key"][1]))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            folder = self.root() / job.id
        try:
            data = read_owned(folder, "submit.json", key)
            if data is None:
                return None  # never started
            plan = json.loads(data)
        except ValueError:
            return None
        except ToolError as exc:  # replaced, or not the server's user's alone: nothing in it is trusted
            return _refused(str(exc))
        return self._follow(folder, plan, job, None, None, key)

    async def _follow(
        self,
        folder: Path,
        plan: dict[str, Any],
        job: Job,
        context: Context | None,
        proc: subprocess.Popen[bytes] | None,
        key: FolderKey | None = None,
    ) -> Any:
        loop = asyncio.get_running_loop()
        reader = ProgressReader(folder / "submit.out", job, context)
        interval = float(self.options.get("poll_interval", 0.25))
        try:
            while True:
                try:  # before anything is read: the folder is still the one made, its user's alone
                    await loop.run_in_executor(None, check_folder, folder, key)
                except ToolError:  # replaced: the client started here is stopped (by its own pid, not the file's)
                    if proc is not None:
                        await loop.run_in_executor(None, stop, folder, proc, key)
                    raise
                reader()
                code = _exit_status(folder, proc)
                if code is not None:
                    reader()
                    return await loop.run_in_executor(None, collect, folder, plan, code, self.max_returned_bytes)
                await asyncio.sleep(interval)
        except asyncio.CancelledError:
            if not job.abandoned:  # the client cancelled: stop submit as an interrupt does
                await loop.run_in_executor(None, stop, folder, proc, key)
            raise


async def _refused(message: str) -> Any:
    raise ToolError(message)


def as_run(spec: object, tool: str) -> SubmitRun:
    """What the tool returned, as a :class:`SubmitRun`."""
    if isinstance(spec, SubmitRun):
        return spec
    if isinstance(spec, str) or (
        isinstance(spec, (list, tuple)) and all(isinstance(a, (str, int, float)) for a in spec)
    ):
        return SubmitRun(spec if isinstance(spec, str) else [str(a) for a in spec])
    raise ToolError(
        f"tool '{tool}' runs on the 'submit' executor: return a SubmitRun (or the command as a list "
        f"of arguments), not a {type(spec).__name__}"
    )


class ProgressReader:
    """Hands each new ``=SUBMIT-PROGRESS=>`` line of ``submit.out`` on as MCP progress."""

    def __init__(self, path: Path, job: Job, context: Context | None) -> None:
        self.path, self.job, self.context = path, job, context
        self.offset = 0
        self.last: tuple[int, ...] | None = None

    def __call__(self) -> None:
        try:
            with open(self.path, "rb") as source:
                source.seek(self.offset)
                data = source.read()
        except OSError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self.offset += end + 1
        for line in data[: end + 1].decode("utf-8", errors="replace").splitlines():
            progress = parse_progress(line)
            if progress is None:
                continue
            counts = (progress.finished, progress.failed, progress.executing, progress.waiting, progress.aborted)
            message = progress.message()
            if self.context is not None:
                with contextlib.suppress(ValueError):  # %done went back: not sent (it must increase)
                    self.context.report_progress(progress.done_percent, 100, message)
                if self.job.progress_message != message and self.job.store is not None:  # (a %done not above
                    # the last sends and keeps nothing: the job keeps the new counts all the same, polls read them)
                    done = max(progress.done_percent, self.job.progress or 0.0)
                    self.job.store.progress(self.job.id, done, 100, message)
                if counts != self.last:
                    self.context.set_task_metadata(
                        submit={
                            "finished": progress.finished,
                            "failed": progress.failed,
                            "executing": progress.executing,
                            "waiting": progress.waiting,
                            "runs": progress.runs,
                        }
                    )
            elif self.job.store is not None:
                self.job.store.progress(self.job.id, progress.done_percent, 100, message)
            self.job.status_message = message
            self.last = counts


def _exit_status(folder: Path, proc: subprocess.Popen[bytes] | None) -> int | None:
    """The client's exit status once it ended (-1: it died without saying), else None."""
    if proc is not None:
        proc.poll()  # reap our child
    try:
        return int((folder / "exit_status").read_text().strip())
    except (OSError, ValueError):
        pass
    alive = proc.poll() is None if proc is not None else _alive(folder)
    if alive:
        return None
    time.sleep(0.1)  # the wrapper writes the status right after the client ends
    try:
        return int((folder / "exit_status").read_text().strip())
    except (OSError, ValueError):
        return -1


def _alive(folder: Path) -> bool:
    try:
        pid = int((folder / "pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def stop(folder: Path, proc: subprocess.Popen[bytes] | None, key: FolderKey | None = None) -> None:
    """SIGTERM to the client's process group, SIGKILL if it is still there after a grace period. Its pid is the
    process's when the server started it, else the ``pid`` file's, read only from the folder as it was made
    (a replaced folder's is not read: nothing is signalled)."""
    try:
        pid = proc.pid if proc is not None else int(read_owned(folder, "pid", key) or b"")
    except (OSError, ValueError, ToolError):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline:
            if proc is not None:
                if proc.poll() is not None:
                    return
            elif not _alive(folder):
                return
            time.sleep(0.05)


def collect(folder: Path, plan: dict[str, Any], code: int, limit: int | None = None) -> ToolResult:
    """The tool's answer from what the run left in ``folder`` (see the module docstring); ``limit``: the most bytes
    of files it returns (:func:`.job_files.file_blocks`).

    Raises:
        ToolError: ``submit`` failed, or every run failed (the message names them); its files hold more than
            ``limit`` bytes.
    """
    patterns = plan.get("outputs") or ["**/*"]
    if plan.get("sweep"):
        runs = []
        for row in combinations(folder / RUN_NAME):
            where = folder / RUN_NAME / f"{row['id']:02d}"
            stem = f"{RUN_NAME}_{row['id']:02d}"
            files = _outputs(where, patterns, {f"{stem}.stdout", f"{stem}.stderr"})
            runs.append(
                {
                    **row,
                    "stdout": tail(where / f"{stem}.stdout", 200, STDOUT_CHARS),
                    "stderr": tail(where / f"{stem}.stderr", 20, 1000),
                    "files": files,
                }
            )
        failed = [r for r in runs if r["status"] != "finished"]
        if code != 0 and (not runs or len(failed) == len(runs)):
            raise ToolError(_failure(code, folder, failed))
        summary: dict[str, Any] = {"run": RUN_NAME, "exit_code": code, "runs": runs}
        paths = [folder / RUN_NAME / f"{r['id']:02d}" / name for r in runs for name in r["files"]]
        text = f"{len(runs) - len(failed)} of {len(runs)} runs finished"
        if failed:
            text += "; " + "; ".join(
                f"run {r['id']} ({_params(r)}) {r['status']}: {r['stderr'] or 'no stderr'}" for r in failed
            )
    else:
        if code != 0:
            raise ToolError(_failure(code, folder, []))
        stdout = tail(folder / f"{RUN_NAME}.stdout", 200, STDOUT_CHARS) or tail(
            folder / "submit.out", 200, STDOUT_CHARS, skip=("=SUBMIT-PROGRESS=>",)
        )
        files = _outputs(folder, patterns, OWN_FILES)
        summary = {"run": RUN_NAME, "exit_code": code, "stdout": stdout, "files": files}
        paths = [folder / name for name in files]
        text = "the run finished"
    return ToolResult(
        [{"type": "text", "text": f"{text}\n{json.dumps(summary)}"}, *file_blocks(paths, limit)],
        structured_content=summary,
    )


def _outputs(where: Path, patterns: list[str], own: set[str]) -> list[str]:
    found: list[str] = []
    root = where.resolve()
    for pattern in patterns:
        for path in sorted(where.glob(pattern)):
            if not path.resolve().is_relative_to(root):
                continue  # a pattern reaching out of the run's folder ("../*") returns nothing from there
            name = str(path.relative_to(where))
            if path.is_file() and name not in own and not name.startswith(f"{RUN_NAME}/") and name not in found:
                found.append(name)
    return found[:MAX_FILES]


def _params(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in row["parameters"].items())


def _failure(code: int, folder: Path, failed: list[dict[str, Any]]) -> str:
    text = f"submit failed (exit code {code})" if code >= 0 else "the submit client ended without an exit status"
    for row in failed:
        text += f"\nrun {row['id']} ({_params(row)}) {row['status']}: {row['stderr'] or 'no stderr'}"
    run_err = tail(folder / f"{RUN_NAME}.stderr")
    client_err = tail(folder / "submit.err")
    if run_err:
        text += f"\nThe run's stderr ends with:\n{run_err}"
    if client_err:
        text += f"\nsubmit said:\n{client_err}"
    return text
