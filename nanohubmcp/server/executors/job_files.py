"""A batch job's folder: where it runs, how it talks back, and what it leaves behind.

Executors that hand a job to a batch system (``slurm``, ``submit``) give each job a folder of its
own under a root on a filesystem the server and the compute nodes share
(``<state dir>/<executor>-jobs/<job id>/`` unless ``executor_options={"job_dir": ...}`` says
where). The folder is the job's working directory and its only channel back to the server, so it
needs no network between them and outlives both processes:

- ``events.jsonl``: one JSON object per line, appended by the job (``ctx.report_progress``, the
  log methods, tqdm bars — :class:`FileChannel`) and read by the server as it grows
  (:class:`EventTail`), which hands each to the call's Context (and so to the client);
- ``cancel``: created by the server when the client cancels; ``ctx.is_cancelled()`` in the job
  turns true once it exists;
- ``.nanohubmcp-job``: an empty file marking the folder as a job's (what removes folders of no job removes only those);
- whatever the executor and the job write besides (submitit's files, a run's outputs).

What served only to run the job and to take it back after a restart (``RUN_FILES``: the pickled
call, the pickled result) goes once its end is in the job store; the folder goes when the job's
record expires (:mod:`.job_folders`).

:func:`file_blocks` turns files the job wrote into MCP content (an embedded resource each; the
server keeps one larger than ``max_inline_bytes`` as a resource and links to it).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import ConfigurationError, ToolError
from ...protocol.message_values import shown_value
from ...protocol.mime import guess_mime_type
from ...protocol.seconds import seconds_of
from ...protocol.whole_numbers import whole_number, written_whole
from ..results import DEFAULT_STORE_BYTES
from ..wire.left_files import LeftFile, LeftFileRefused, open_left_file
from ..wire.owned_folders import warn_shared
from ..wire.state_dir import private_folder
from .base import JobExecutor
from .remote import deliver

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.record import JobKeeper

EVENTS = "events.jsonl"
CANCEL = "cancel"
MARK = ".nanohubmcp-job"
MAX_LINE_BYTES = 1024 * 1024
"""A longer event line is dropped (a job writing nonsense must not exhaust the server)."""
MAX_RETURNED_BYTES = DEFAULT_STORE_BYTES
"""The most bytes of files one batch job returns when no server set it (512 MiB, the server's default
``max_kept_bytes``; a server's executors take its ``max_kept_bytes``: :attr:`~.base.JobExecutor.max_returned_bytes`):
past it the job fails before any file is read."""
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/csv")


def job_root(state_dir: Callable[[], str] | str | None, executor: str, configured: str | None) -> Path:
    """The folder holding the job folders of ``executor``: ``configured`` (``job_dir``), else
    ``<state dir>/<executor>-jobs``, else ``./<executor>-jobs``."""
    if configured:
        return Path(configured).expanduser().absolute()
    base = state_dir() if callable(state_dir) else state_dir
    return Path(base or ".").expanduser().absolute() / f"{executor}-jobs"


class FolderJobExecutor(JobExecutor):
    """What the executors that keep a folder per job share: their options (checked by
    :meth:`check`, named in ``OPTIONS``) and the root of their job folders."""

    survives_restart = True
    RUN_FILES: ClassVar[tuple[str, ...]] = ()
    """Glob patterns of the files in a job's folder that serve only to run it and to take it back after a
    restart (its inputs, its result as the job wrote it): removed once its end is in the job store."""
    SIGNS: ClassVar[tuple[str, ...]] = ()
    """Glob patterns of files only this executor's job folders hold (a folder of an earlier version,
    without :data:`MARK`, is known by them)."""

    def __init__(self, state_dir: Callable[[], str] | str | None = None, options: dict[str, Any] | None = None) -> None:
        self.state_dir = state_dir
        self.options = self.check(dict(options or {}))

    def check(self, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` checked (unknown names refused) and normalised; subclasses check values.

        Raises:
            ConfigurationError: an option this executor does not take.
        """
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ConfigurationError(
                f"unknown {self.name} executor option(s) {', '.join(unknown)}; "
                f"the options are {', '.join(self.OPTIONS)}"
            )
        return options

    def configure(self, options: dict[str, Any]) -> JobExecutor:
        if not options:
            return self
        made = type(self)(self.state_dir, {**self.options, **options})
        made.max_returned_bytes = self.max_returned_bytes
        return made

    def root(self) -> Path:
        """The folder of this executor's job folders."""
        return job_root(self.state_dir, self.name, self.options.get("job_dir"))


def positive_ints(values: MutableMapping[str, object], keys: tuple[str, ...], what: str) -> None:
    """Refuse a value of ``keys`` in ``values`` that is not a positive whole number, and make each the int (any whole
    number: ``4.0``, numpy's ``int64(4)``, as every count of the server reads it,
    :func:`~nanohubmcp.protocol.whole_numbers.whole_number`; a command line then says ``4``, never ``4.0``).

    Raises:
        ConfigurationError: naming ``what``, the key and the value ("slurm option gpus must be a positive whole
            number, not 1.5; write a whole number: 2").
    """
    for key in keys:
        value = values.get(key)
        if value is None:
            continue
        number = whole_number(value)
        if number is None or number < 1:
            raise ConfigurationError(f"{what} {key} must be a positive whole number, not {shown_value(value)}"
                                     f"{written_whole(value)}")
        values[key] = number


MAX_POLL_SECONDS = 300.0
"""The longest ``poll_interval`` of a batch executor: a job's end is seen at most that late."""


def poll_seconds(values: Mapping[str, object], least: float, what: str, looked: str) -> None:
    """Refuse a ``poll_interval`` in ``values`` that is not a number of seconds (any real number: ``2.5``,
    numpy's ``int64(5)``) from ``least`` to :data:`MAX_POLL_SECONDS` (a shorter one looks in a busy loop).

    Raises:
        ConfigurationError: one line naming ``what`` (``"slurm option"``) and what is looked at that often
            (``looked``: ``"squeue is asked"``).
    """
    every = values.get("poll_interval")
    if every is None:
        return
    seconds = seconds_of(every)  # any real number, as check_options' durations (numpy's int64 too)
    if seconds is None or not least <= seconds <= MAX_POLL_SECONDS:  # (NaN is within no range)
        raise ConfigurationError(f"{what} poll_interval must be a number of seconds from {least:g} to "
                                 f"{MAX_POLL_SECONDS:.0f} ({looked} that often), not {shown_value(every)}")


def make_job_folder(root: Path, job_id: str) -> Path:
    """Create (owner-only) and return the folder of job ``job_id`` under ``root``.

    Folders missing on the way to ``root`` are made owner-only; a ``root`` made beforehand (a ``job_dir`` in a
    project space, group-shared and setgid) keeps its mode: it is the operator's to set (a warning is logged
    once when others may write there without the sticky bit: :func:`~..wire.owned_folders.warn_shared`). The
    server reads the job's files only while the folder passes :func:`~..wire.owned_folders.check_folder`.
    """
    private_folder(str(root), tighten=False)
    warn_shared(root, "job_dir")
    folder = root / job_id
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / MARK).touch()
    return folder


class FileChannel:
    """A job's channel (see :class:`~.remote.Channel`) through its folder; pickled with the job."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = os.fspath(folder)

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        line = json.dumps({"kind": kind, "payload": payload}, default=str, separators=(",", ":")) + "\n"
        # One write of one line in append mode: lines of several writers never interleave.
        with open(os.path.join(self.folder, EVENTS), "a", encoding="utf-8") as sink:
            sink.write(line)

    def cancelled(self) -> bool:
        return os.path.exists(os.path.join(self.folder, CANCEL))


def request_cancel(folder: Path) -> None:
    """Tell the job in ``folder`` that it is cancelled (its ``ctx.is_cancelled()`` turns true)."""
    with contextlib.suppress(OSError):  # the folder is gone: nothing runs there any more
        (folder / CANCEL).touch()


class EventTail:
    """The server's reader of a job's ``events.jsonl``: each call hands on the complete lines
    written since the last one (to the call's Context, or to the job store after a restart)."""

    def __init__(self, folder: Path, job_id: str, context: Context | None, store: JobKeeper | None) -> None:
        self.path = folder / EVENTS
        self.job_id = job_id
        self.context = context
        self.store = store
        self.offset = 0

    def __call__(self) -> int:
        """Deliver what is new; returns how many events were delivered."""
        try:
            with open(self.path, "rb") as source:
                source.seek(self.offset)
                data = source.read()
        except OSError:
            return 0
        end = data.rfind(b"\n")
        if end < 0:
            return 0  # nothing complete yet
        self.offset += end + 1
        count = 0
        for raw in data[: end + 1].splitlines():
            if not raw.strip() or len(raw) > MAX_LINE_BYTES:
                continue
            try:
                event = json.loads(raw)
                kind, payload = event["kind"], event["payload"]
            except (ValueError, KeyError, TypeError):
                continue
            if kind in ("progress", "log") and isinstance(payload, list) and len(payload) == 3:
                deliver(self.context, self.store, self.job_id, kind, payload)
                count += 1
        return count


def tail(path: Path, lines: int = 20, max_chars: int = 2000, skip: tuple[str, ...] = ()) -> str:
    """The last ``lines`` lines of a text file (at most ``max_chars``), without lines starting
    with one of ``skip``; empty when the file is missing."""
    try:
        with open(path, "rb") as source:
            source.seek(0, os.SEEK_END)
            size = source.tell()
            source.seek(max(0, size - 64 * 1024))
            text = source.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line for line in text.splitlines() if line.strip() and not line.startswith(skip)]
    return "\n".join(kept[-lines:])[-max_chars:]


def file_blocks(paths: Iterable[Path], limit: int | None = None) -> list[dict[str, Any]]:
    """One MCP ``resource`` block per file (MCP 2025-11-25, Server § Tools § Embedded resources),
    its ``file://`` URI naming it: text for text types (and UTF-8 files of no known type, as
    ``text/plain``), base64 ``blob`` otherwise.

    Each file is opened without following a symbolic link (nor waiting on a FIFO) and only a regular
    file is returned (others are left out); their sizes (``fstat``) are added up before any is read, and
    each is read to at most the size seen then.

    Raises:
        ToolError: the files hold more than ``limit`` bytes in all (the executor's ``max_returned_bytes``, the
            server's ``max_kept_bytes``; default :data:`MAX_RETURNED_BYTES`); the message names the sizes and what
            to change.
    """
    limit = MAX_RETURNED_BYTES if limit is None else limit
    opened: list[tuple[Path, LeftFile]] = []
    try:
        total = 0
        for path in paths:
            try:
                left = open_left_file(path)
            except (OSError, LeftFileRefused):
                continue  # gone, a symbolic link, not a regular file, unreadable: not returned
            opened.append((path, left))
            total += left.size
            if total > limit:
                raise ToolError(
                    f"the files the job returned hold more than {limit} bytes (at {path.name}, {left.size} bytes, "
                    f"{total} in all), more than the server keeps for large results (its max_kept_bytes): have the "
                    "run write less, name fewer files in its outputs, or raise the server's max_kept_bytes"
                )
        return [_block(path, left.read()) for path, left in opened]
    finally:
        for _, left in opened:
            left.close()


def _block(path: Path, data: bytes) -> dict[str, Any]:
    mime = guess_mime_type(path.name)
    text = _as_text(data) if mime is None or mime.startswith(TEXT_TYPES) else None
    mime = mime or ("text/plain" if text is not None else "application/octet-stream")
    resource: dict[str, Any] = {"uri": path.absolute().as_uri(), "mimeType": mime}
    if text is not None:
        resource["text"] = text
    else:
        resource["blob"] = base64.b64encode(data).decode("ascii")
    return {"type": "resource", "resource": resource}


def _as_text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
