"""One run of nanoHUB's ``submit`` command: what a ``submit`` tool returns (:class:`SubmitRun`), its
command line, and how to read what ``submit`` prints and leaves.

The command line follows the hub's documentation of ``submit`` (HUBzero, tool developers,
"Submit command"): ``submit --progress submit --runName=NAME [-v VENUE]... [-n NCPUS] [-N PPN]
[-w WALLTIME] [-e VAR=value]... [-i FILE]... [-p @@NAME=V1,V2]... [-s SEP] [-m MANAGER] [--local]
COMMAND ARGS...``. A parameter sweep (``-p``) runs the command once per combination of values,
each with ``@@NAME`` replaced in its arguments (and in input files given as ``@:path``), and
leaves ``NAME/parameterCombinations.csv`` (``id,status,NAME...``) and one folder per combination
(``NAME/01/``, with ``NAME_01.stdout``). A single run leaves ``NAME.stdout``/``NAME.stderr``
beside the files the command wrote. With ``--progress submit`` the client prints lines
``=SUBMIT-PROGRESS=> aborted=A finished=F failed=X executing=E waiting=W setting_up=S setup=U
%done=P timestamp=T``.
"""

from __future__ import annotations

import csv
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigurationError
from ...protocol.message_values import shown_value
from .job_files import poll_seconds, positive_ints
from .submit_sweep import MAX_RUNS, sweep_arguments

RUN_NAME = "mcprun"
"""The ``--runName`` of every job (each job runs in a folder of its own)."""
PROGRESS = re.compile(
    r"=SUBMIT-PROGRESS=> aborted=(\d+) finished=(\d+) failed=(\d+) executing=(\d+) waiting=(\d+) "
    r"setting_up=(\d+) setup=(\d+) %done=(\d*\.?\d+) timestamp=(\d*\.?\d+)"
)
_WALLTIME = re.compile(r"^(\d+|\d+:\d{2}:\d{2})\Z", re.ASCII)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class SubmitRun:
    """What a ``job_executor="submit"`` tool returns: the command ``submit`` runs, and how.

    Args:
        command: the program and its arguments (a list; a string is split on spaces). In a sweep,
            ``@@name`` in an argument is replaced by the combination's value.
        parameters: a sweep, ``{"cap": ["10pf", "100pf"]}``: one run per combination of values
            (``-p @@cap=10pf,100pf``), one result each. A value may also be ``submit``'s range
            text, ``"0:0.5:2"`` (start:step:end).
        inputs: files sent with the run (``-i``); relative paths are the server's working
            directory's. ``"@:deck.in"`` has ``@@name`` replaced in the file too.
        env: environment variables of the run (``-e VAR=value``).
        outputs: glob patterns (relative to the run's folder) of the files to return as content;
            default: every file the run wrote.
        venue: where the run goes (``-v``), over the executor's option.
        cores: number of cores (``-n``), over the executor's option.
        ppn: processes per node (``-N``), over the executor's option.
        walltime: the wall-time limit (``-w``, hh:mm:ss or minutes), over the executor's option.
        local: run on the tool session's own machine (``--local``), over the executor's option.
        manager: the manager running the program there (``-m``), over the executor's option.

    Source: HUBzero documentation, tool developers, "Submit command".
    """

    command: Sequence[str] | str
    parameters: Mapping[str, Sequence[Any] | str] = field(default_factory=dict)
    inputs: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    outputs: Sequence[str] = ()
    venue: str | None = None
    cores: int | None = None
    ppn: int | None = None
    walltime: str | int | None = None
    local: bool | None = None
    manager: str | None = None

    @property
    def argv(self) -> list[str]:
        """The command as a list of arguments."""
        return self.command.split() if isinstance(self.command, str) else [str(a) for a in self.command]


OPTIONS: dict[str, str] = {
    "venue": "where runs go (submit -v), e.g. 'workspace'; several as a list",
    "cores": "processors for an MPI run (submit -n)",
    "ppn": "processors per node (submit -N)",
    "walltime": "the run's wall time, minutes or hh:mm:ss (submit -w)",
    "local": "run in the tool's own container (submit --local)",
    "manager": "the multiprocessor job manager (submit -m)",
    "env": "environment variables of every run, {'OMP_NUM_THREADS': '4'} (submit -e)",
    "inputs": "files sent with every run (submit -i)",
    "outputs": "glob patterns of the files returned (default: every file a run wrote)",
    "extra": "more submit arguments, as a list",
    "submit": "the submit command (default 'submit', found on PATH)",
    "job_dir": "the folder of the job folders",
    "poll_interval": "seconds between looks at the run (default 0.25; from 0.1 to 300)",
    "max_runs": f"the most runs one sweep may make (default {MAX_RUNS}); past it the call is refused",
}
MIN_POLL_SECONDS = 0.1
"""The shortest ``poll_interval``: each look reads the run's output on the server's event loop, so a
busy loop of them would starve every other request."""


def check_values(values: dict[str, Any], what: str) -> None:
    """Refuse option values ``submit`` cannot take (``what`` names them in the message); ``cores`` and ``ppn``
    become ints (``4.0``, numpy's ``int64(4)``: 4).

    Raises:
        ConfigurationError: a count that is not a positive whole number, a wall time that is not
            minutes or hh:mm:ss, an environment that is not a dict of variable names, a ``poll_interval``
            that is not a number of seconds from 0.1 to 300.
    """
    positive_ints(values, ("cores", "ppn", "max_runs"), what)
    poll_seconds(values, MIN_POLL_SECONDS, what, "the run's output is read")
    walltime = values.get("walltime")
    if walltime is not None and not _walltime(walltime):
        raise ConfigurationError(f"{what} walltime must be minutes or hh:mm:ss, not {shown_value(walltime)}")
    env = values.get("env")
    if env is not None and (not isinstance(env, Mapping) or not all(_NAME.match(str(k)) for k in env)):
        raise ConfigurationError(f"{what} env must be a dict of variable names to values")


def _walltime(value: object) -> bool:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value) >= 0  # (minutes; an int of any size, which str() may refuse)
    return _WALLTIME.match(str(value)) is not None


def command_line(run: SubmitRun, options: Mapping[str, Any], workdir: Path) -> list[str]:
    """The ``submit`` arguments for ``run`` with the executor's ``options`` (the run's own
    choices win), relative input paths resolved against ``workdir``.

    Raises:
        ConfigurationError: an empty command, a bad value (the message says which).
    """
    argv = run.argv
    if not argv:
        raise ConfigurationError("a SubmitRun needs a command, e.g. SubmitRun(['sim.py', '--steps', '10'])")
    mine = {key: getattr(run, key) for key in ("venue", "cores", "ppn", "walltime", "local", "manager")}
    merged = {**options, **{key: value for key, value in mine.items() if value is not None}}
    merged["env"] = {**(options.get("env") or {}), **run.env}
    check_values(merged, "SubmitRun")
    args = [str(options.get("submit") or "submit"), "--progress", "submit", f"--runName={RUN_NAME}"]
    venues = merged.get("venue")
    for venue in [venues] if isinstance(venues, str) else list(venues or []):
        args += ["-v", str(venue)]
    for key, flag in (("cores", "-n"), ("ppn", "-N"), ("walltime", "-w"), ("manager", "-m")):
        if merged.get(key) is not None:
            args += [flag, str(merged[key])]
    for name, value in merged["env"].items():
        args += ["-e", f"{name}={value}"]
    for path in [*(options.get("inputs") or []), *run.inputs]:
        args += ["-i", _input_path(str(path), workdir)]
    if run.parameters:
        args += sweep_arguments(run.parameters, int(options.get("max_runs") or MAX_RUNS))
    if merged.get("local"):
        args.append("--local")
    return [*args, *[str(a) for a in options.get("extra") or []], *argv]


def _input_path(path: str, workdir: Path) -> str:
    prefix = "@:" if path.startswith("@:") else ""
    bare = Path(path[len(prefix) :]).expanduser()
    return prefix + str(bare if bare.is_absolute() else (workdir / bare).absolute())


@dataclass(frozen=True)
class Progress:
    """One ``=SUBMIT-PROGRESS=>`` line."""

    aborted: int
    finished: int
    failed: int
    executing: int
    waiting: int
    setting_up: int
    done_percent: float

    @property
    def runs(self) -> int:
        return self.aborted + self.finished + self.failed + self.executing + self.waiting + self.setting_up

    def message(self) -> str:
        parts = [f"{self.finished} finished"]
        for count, word in (
            (self.executing, "executing"),
            (self.waiting, "waiting"),
            (self.setting_up, "setting up"),
            (self.failed, "failed"),
            (self.aborted, "aborted"),
        ):
            if count:
                parts.append(f"{count} {word}")
        return f"submit: {', '.join(parts)} of {self.runs} run{'s' if self.runs != 1 else ''}"


def parse_progress(line: str) -> Progress | None:
    """The counts of a ``=SUBMIT-PROGRESS=>`` line (None for any other line)."""
    found = PROGRESS.search(line)
    if found is None:
        return None
    aborted, finished, failed, executing, waiting, setting_up, setup = (int(found.group(i)) for i in range(1, 8))
    return Progress(aborted, finished, failed, executing, waiting, setting_up + setup, float(found.group(8)))


def combinations(run_folder: Path) -> list[dict[str, Any]]:
    """The rows of ``parameterCombinations.csv``: ``{"id": 1, "status": "finished",
    "parameters": {...}}`` each (an empty list when there is none)."""
    path = run_folder / "parameterCombinations.csv"
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line and not line.startswith("#")]
    except OSError:
        return []
    rows = list(csv.reader(lines))
    if not rows:
        return []
    header, found = rows[0], []
    for row in rows[1:]:
        if len(row) < 2 or not row[0].strip().isdigit():
            continue
        names = [h.strip().lstrip("@") for h in header[2:]]
        found.append(
            {
                "id": int(row[0]),
                "status": row[1].strip(),
                "parameters": dict(zip(names, (v.strip() for v in row[2:]), strict=False)),
            }
        )
    return found
