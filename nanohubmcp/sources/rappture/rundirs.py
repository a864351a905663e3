"""Where a Rappture run's working directory goes, and removing what killed processes left.

A process keeps the working directories of its runs in one parent of its own in the temporary
directory, ``nanohubmcp-rappture-<host>-<pid>-<random>/``, locked for its life, and removes it at exit, after
killing the programs still running there (:func:`.running.stop_all`); what a killed process left (or a job's
process of the ``processes`` executor, which runs no exit handler: its server sweeps once it ended),
:func:`sweep` removes after stopping the programs its runs left running there (Linux). The folders, the
lock and the sweep are :mod:`..run_folders`'s, shared with the Sim2L source; this module names Rappture's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ...server.wire.left_files import LeftFileRefused, read_left_file
from ..run_folders import RunFolders, record_group
from .running import stop_all

__all__ = ["PREFIX", "RUN_FILE_LIMIT", "RUN_MARK", "RunFileRefused", "read_run_file", "record_group",
           "remove_run_directory", "remove_run_directory_soon", "run_directory",
           "sweep", "sweep_once"]

PREFIX = "nanohubmcp-rappture-"
"""How the parent of a process's run directories is named: ``PREFIX<host>-<pid>-<random>``."""
RUN_MARK = "NANOHUBMCP_RAPPTURE_RUN"
"""The environment variable a run's program is started with: its run directory (resolved), so that a program
whose group was never noted is still told from a process that merely works in its folder."""

RUN_FILE_LIMIT = 64 * 1024 * 1024
"""The most bytes of a run's run file (or, on a hub, of the output ``rappture -execute`` printed) that are read."""


class RunFileRefused(Exception):
    """A run file that is not read: not a regular file (a symbolic link, a FIFO, a directory) or over
    :data:`RUN_FILE_LIMIT`; the message says which, after the file's name."""


def read_run_file(path: Path, limit: int = RUN_FILE_LIMIT) -> str:
    """The text of the file ``path`` a run left (UTF-8, undecodable bytes replaced); ``""`` when there is none.

    Opened without following a symbolic link and without waiting on a FIFO, and only a regular file of at most
    ``limit`` bytes is read: a program's output names the file, and a program may echo what a caller sent.

    Raises:
        RunFileRefused: not a regular file, or over ``limit`` bytes.
    """
    try:
        data = read_left_file(path, limit)
    except FileNotFoundError:
        return ""
    except LeftFileRefused as exc:
        said = {"link": "is a symbolic link (never followed)", "kind": "is not a regular file"}.get(
            exc.reason, f"is over the {limit // (1024 * 1024)} MiB a run file may have")
        raise RunFileRefused(f"{path.name} {said}") from None
    return data.decode("utf-8", errors="replace")


_FOLDERS = RunFolders(PREFIX, RUN_MARK, at_exit=stop_all)  # a program must not outlive the folder a sweep finds it by


def run_directory(tool: str) -> Path:
    """A new, empty working directory for one run of ``tool`` (``rappture-<tool>-<random>``) in this
    process's parent; the caller removes it when the run ends."""
    return _FOLDERS.make(tempfile.gettempdir(), f"rappture-{tool[:40]}-")


def remove_run_directory(run: Path) -> None:
    """Remove the working directory ``run`` of an ended run, and the note of its process group."""
    _FOLDERS.remove(run)


def remove_run_directory_soon(run: Path) -> None:
    """:func:`remove_run_directory` on this process's removal thread, returning at once (a run's answer does not
    wait for it: :meth:`..run_folders.RunFolders.remove_soon`)."""
    _FOLDERS.remove_soon(run)


def sweep(directory: str | None = None) -> list[Path]:
    """Remove the run directories of processes that ended without removing them (killed), in
    ``directory`` (default: the temporary directory), first killing the programs still running in
    them; returns the parents removed."""
    return _FOLDERS.sweep(directory or tempfile.gettempdir())


def sweep_once() -> None:
    """:func:`sweep` the temporary directory, the first time this process asks (a server registering
    its Rappture tools: its start)."""
    _FOLDERS.sweep_once(tempfile.gettempdir())
