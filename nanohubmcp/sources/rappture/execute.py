"""Running a Rappture tool's program on a driver file, the way Rappture's runner does.

Two ways, chosen per call:

- **On a hub** (a ``rappture`` program on ``PATH``, or ``rappture=`` given): ``rappture -execute
  driver.xml -tool tool.xml``. Rappture runs the ``<command>`` itself and prints the run file's
  XML on standard output; its exit status is the run's.
- **Elsewhere**: the ``<command>`` of tool.xml, with ``@tool`` replaced by tool.xml's directory
  and ``@driver`` by the driver file, split into words like a shell would (no shell runs it).
  The program prints ``=RAPPTURE-RUN=>run123.xml`` on a line of its own, naming the run file it
  wrote in its working directory (a bare file name: a path is never read, whatever a program
  echoing its inputs prints). A command
  starting with ``python`` or ``python3`` runs with the server's own interpreter, and Python
  programs find a small ``Rappture`` package on their ``PYTHONPATH`` (:mod:`.compat`).

Either way the program runs in a fresh working directory, in a process group of its own, with a
time limit: at the limit (or when the call is cancelled) the whole group gets SIGTERM, then what
is left of it SIGKILL two seconds later — or at once when this process exits sooner
(:mod:`.running`). Lines ``=RAPPTURE-PROGRESS=>pct message`` are reported as they come, and
so is the ``=RAPPTURE-RUN=>`` line: a program prints it once it has written its run file, so the
caller may read the file while the program exits (an interpreter takes 5-30 ms to). Both markers
count only at the start of a line (Rappture's own functions print them so); a progress percentage is
clamped to 0-100 (one not finite is dropped) and its message cut to :data:`PROGRESS_MESSAGE_CHARS`.
Only the last 64 KiB of each output stream are kept in memory (standard output goes to
``stdout.log`` in the working directory as well).
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

from ...server.wire.run_environment import run_environment
from . import running

__all__ = ["COMPAT_PATH", "PROGRESS_MESSAGE_CHARS", "TAIL_BYTES", "Outcome", "command_line", "find_rappture",
           "run_program"]

COMPAT_PATH = Path(__file__).resolve().parent / "compat"
"""The directory holding the ``Rappture`` compatibility package (put on the program's PYTHONPATH)."""

TAIL_BYTES = 64 * 1024
"""How much of each output stream is kept for the log tail."""

PROGRESS_MESSAGE_CHARS = 500
"""How much of a progress line's message is passed on (a program may echo a long input into it)."""

_PROGRESS = re.compile(r"=RAPPTURE-PROGRESS=>\s*([-+]?\d+(?:\.\d*)?)\s*(.*)")  # at a line's start
_RUN = re.compile(r"=RAPPTURE-RUN=>\s*(\S+)\s*")  # the whole line
_GRACE = 2.0


@dataclass
class Outcome:
    """How a run ended.

    Attributes:
        status: the exit status (negative: the signal that ended it).
        run_file: the run file the program named (``=RAPPTURE-RUN=>``, the last such line) in its
            working directory; None when there is none (on a hub Rappture prints the run file itself).
        refused_run_file: the name a ``=RAPPTURE-RUN=>`` line gave that is not a bare file name (a path
            out of the working directory, or a hidden file): never opened; None when there was none.
        stdout_tail / stderr_tail: the last lines of each stream.
        timed_out: stopped at the time limit.
        cancelled: stopped because the call was cancelled.
        seconds: wall-clock time of the run.
    """

    status: int
    run_file: Path | None
    stdout_tail: str
    stderr_tail: str
    timed_out: bool = False
    cancelled: bool = False
    seconds: float = 0.0
    refused_run_file: str | None = None
    progress: list[tuple[float, str]] = field(default_factory=list)

    def log_tail(self, limit: int = 4000) -> str:
        """The end of what the program printed (standard error after standard output)."""
        text = "\n".join(t for t in (self.stdout_tail.strip(), self.stderr_tail.strip()) if t)
        return text[-limit:]


def find_rappture(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """The ``rappture`` program to run tools with: ``explicit`` (a path or name), else the one on
    ``PATH``; None off a hub. ``explicit=""`` turns the hub path off. The path returned is absolute: a
    relative one is read against the current directory now, since each run starts in its own directory."""
    if explicit == "":
        return None
    found = shutil.which(explicit or "rappture")
    return os.path.abspath(found) if found else None


def command_line(command: str, tool_dir: Path, driver: Path) -> list[str]:
    """The ``<command>`` as argv: split like a shell would, then ``@tool`` and ``@driver`` substituted
    in each word (so a tool directory with a space in its path stays one word).

    Raises:
        ValueError: an empty command, or unbalanced quotes.
    """
    words = [
        word.replace("@tool", str(tool_dir)).replace("@driver", str(driver)) for word in shlex.split(command.strip())
    ]
    if not words:
        raise ValueError("the tool's <command> is empty")
    if words[0] in ("python", "python3"):
        words[0] = sys.executable  # the server's own interpreter: the packages it has, and pint
    return words


class _Tail:
    """The last ``limit`` characters of a stream, kept line by line."""

    def __init__(self, limit: int = TAIL_BYTES) -> None:
        self.lines: deque[str] = deque()
        self.size = 0
        self.limit = limit

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line)
        while self.size > self.limit and len(self.lines) > 1:
            self.size -= len(self.lines.popleft())

    def text(self) -> str:
        return "".join(self.lines)


def _read(stream: IO[str], tail: _Tail, events: queue.Queue[tuple[str, object]], copy: IO[str] | None) -> None:
    for line in stream:
        tail.add(line)
        if copy is not None:
            copy.write(line)
        if line.startswith("=RAPPTURE-"):
            progress = _PROGRESS.match(line)
            if progress:
                percent = float(progress.group(1))  # (400 digits read as inf)
                if math.isfinite(percent):
                    message = progress.group(2).strip()[:PROGRESS_MESSAGE_CHARS]
                    events.put(("progress", (min(100.0, max(0.0, percent)), message)))
            run = _RUN.fullmatch(line)
            if run:
                events.put(("run", run.group(1)))
    events.put(("eof", None))


def _bare_name(name: str) -> bool:
    """Whether ``name`` names a file in the working directory itself: no separator, not hidden, no NUL."""
    return not (name.startswith(".") or "/" in name or "\\" in name or "\0" in name)


def _stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the whole process group, SIGKILL to what is left of it after a grace period: the
    program's own children too (``rappture -execute`` ends at SIGTERM, the tool's program it runs
    may not)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE
    while time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(0.0, min(0.05, deadline - time.monotonic())))
            if not _group_left(process.pid):
                return
            time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_GRACE)


def _group_left(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is still there (the leader reaped: its group id is not free while
    one is)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _close(process: subprocess.Popen[str], log: IO[str]) -> None:
    for stream in (process.stdout, process.stderr, log):
        if stream is not None:
            stream.close()


def run_program(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    on_progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    on_run_file: Callable[[Path], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Outcome:
    """Run ``argv`` in ``cwd`` until it ends, ``timeout`` seconds pass (``math.inf``: never), or ``cancelled()``
    is true.

    ``on_progress(percent, message)`` is called on this thread for each progress line, and
    ``on_run_file(path)`` for each ``=RAPPTURE-RUN=>`` line, as the program prints it (it is still
    running: its exit status is not known yet, and the time limit and ``cancelled()`` are looked at
    again once the callback returns). ``on_start(pgid)`` is called once the program has started,
    with the id of the process group it leads (its pid); if it raises, the program is stopped and
    the error raised.

    Raises:
        OSError: the program cannot be started (not found, not executable).
    """
    started = time.monotonic()
    log = open(cwd / "stdout.log", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except OSError:
        log.close()
        raise
    running.started(process)  # (killed at this process's exit if still running then)
    if on_start is not None:
        try:
            on_start(process.pid)
        except BaseException:
            _stop(process)
            _close(process, log)
            running.ended(process)
            raise
    events: queue.Queue[tuple[str, object]] = queue.Queue()
    out, err = _Tail(), _Tail()
    assert process.stdout is not None
    assert process.stderr is not None
    readers = [
        threading.Thread(target=_read, args=(process.stdout, out, events, log), daemon=True),
        threading.Thread(target=_read, args=(process.stderr, err, events, None), daemon=True),
    ]
    for reader in readers:
        reader.start()
    outcome = Outcome(status=0, run_file=None, stdout_tail="", stderr_tail="")
    open_streams = len(readers)
    deadline = started + timeout
    reaped = False
    try:
        while open_streams or process.poll() is None:
            if not reaped and process.poll() is not None:
                reaped = True  # what it left running in its group would hold the pipes open
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.timed_out = True
                break
            if cancelled is not None and cancelled():
                outcome.cancelled = True
                break
            if not open_streams:  # both streams closed: the program is ending; wait for it, not for events
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=min(0.2, remaining))
                continue
            try:
                kind, payload = events.get(timeout=min(0.2, remaining))
            except queue.Empty:
                continue
            if kind == "eof":
                open_streams -= 1
            elif kind == "run":
                name = str(payload)
                if not _bare_name(name):
                    outcome.refused_run_file = name[:200]
                    continue
                outcome.run_file = cwd / name
                if on_run_file is not None:
                    on_run_file(outcome.run_file)
            elif kind == "progress":
                percent, message = cast("tuple[float, str]", payload)
                outcome.progress.append((percent, message))
                if on_progress is not None:
                    on_progress(percent, message)
    finally:
        if process.poll() is None:
            _stop(process)
        else:  # the program ended; children it left in its group go too
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        for reader in readers:
            reader.join(timeout=_GRACE)
        if not any(reader.is_alive() for reader in readers):  # else a process out of its group holds a pipe
            _close(process, log)
        else:
            log.close()
        running.ended(process)  # (its group killed: nothing left to stop at this process's exit)
    outcome.status = process.wait()
    outcome.stdout_tail, outcome.stderr_tail = out.text(), err.text()
    outcome.seconds = time.monotonic() - started
    return outcome


def program_environment(python_tool: bool = True) -> dict[str, str]:
    """The environment a tool's program runs in: this one without the server's secrets
    (:data:`~nanohubmcp.server.wire.run_environment.SERVER_SECRETS`), with the ``Rappture`` compatibility
    package last on ``PYTHONPATH`` (an installed Rappture, earlier on the path, wins)."""
    env = run_environment()
    if python_tool:
        parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join([*parts, str(COMPAT_PATH)])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env
