"""Stored Sim2L runs, identified by a hash of their inputs (as nanoHUB's results database does).

A run's identity is the Sim2L's name and revision, the SHA-256 of the notebook's code and every input's value
(declared values filled in, files as their SHA-256), written as canonical JSON; its SHA-256 is the
run id. A finished run is the directory ``<root>/<name>/<revision>/<run id>/`` holding the executed
notebook (its scrapbook entries are the outputs), the files it saved and ``run.json`` (identity,
start and end times). A run is made in ``<root>/.running/<random>/`` and renamed into place only
when it succeeded, so a stored run is always complete and a failed one leaves nothing behind; the
directory outlives the process, so a restarted server answers from it too.

A run's scratch directory is in this process's own folder of ``<root>/.running/``
(``nanohubmcp-sim2l-<host>-<pid>-<random>``, locked for the process's life: :mod:`..run_folders`): the kernel
of a process killed mid-run (SIGKILL, the OOM killer), and what its cell started, are stopped and that folder
removed by :func:`sweep_runs` — at the next server's start, in the ``--workers`` parent as soon as a worker
died, and in the server as soon as a job's process of the ``processes`` executor ended (it runs no exit
handler; the stop kills it).

Identical calls made at the same time run once: the second waits for the first (per run id, in
every process sharing the directory) and is answered from the stored run.

A Sim2L keeps at most ``max_runs`` stored runs (default 1,000): storing one more removes the runs
least recently stored or answered from, so distinct inputs cannot fill the disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ...errors import ToolError
from ...server.wire.owned_folders import check_folder
from ...server.wire.state_dir import owner_only_tree, private_folder, safe_name
from ...server.wire.worker_cleanups import after_worker_death
from ..run_folders import RunFolders
from .claims import claimed, sweep_claims

__all__ = ["DEFAULT_MAX_RUNS", "RUN_FILE", "RUN_MARK", "RunStore", "run_id", "sweep_runs"]

RUN_MARK = "NANOHUBMCP_SIM2L_RUN"
"""The environment variable a run's kernel is started with: its scratch directory (resolved), so that a sweep
tells the kernel (and what its cells started) from a process that merely works in that folder."""

_FOLDERS = RunFolders("nanohubmcp-sim2l-", RUN_MARK)

RUN_FILE = "run.json"
DEFAULT_MAX_RUNS = 1000
"""Stored runs a Sim2L keeps by default."""


def run_id(identity: dict[str, Any]) -> str:
    """SHA-256 (hex) of ``identity`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class RunStore:
    """The stored runs of one Sim2L under ``root`` (see the module docstring).

    Args:
        root: the directory of all Sim2L runs (e.g. ``<state dir>/sim2l``).
        name / revision: the Sim2L's.
    """

    def __init__(self, root: str, name: str, revision: str, *, max_runs: int = DEFAULT_MAX_RUNS) -> None:
        if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1:
            raise ValueError(f"max_runs must be a whole number of runs, at least 1 (got {max_runs!r})")
        self.max_runs = max_runs
        self.root = root
        self.top = os.path.join(root, safe_name(name))
        self.directory = os.path.join(self.top, safe_name(revision))
        self.runs = 0  # papermill runs made by this store (not answers from stored runs)

    def path(self, run: str) -> str:
        """The directory of the stored run ``run`` (it may not exist)."""
        if len(run) != 64 or any(c not in "0123456789abcdef" for c in run):
            raise ValueError(f"{run!r} is not a run id (64 hex digits)")
        return os.path.join(self.directory, run)

    def find(self, run: str) -> str | None:
        """The stored run's directory, or None when there is none.

        A stored run is answered from only when every folder from ``<root>/<name>`` down to the run's, and its
        ``run.json``, are the server's user's, granting nothing to group or other (not links): in a ``results_dir``
        a group may write to, a member could otherwise rename ``<name>`` and plant a run of their own under an id
        anyone can compute (:func:`~nanohubmcp.server.wire.owned_folders.check_folder`).

        Raises:
            ToolError: a folder on the way, or ``run.json``, fails that check (naming it and what to fix).
        """
        record = os.path.join(self.path(run), RUN_FILE)
        if not os.path.lexists(record):
            return None
        self._check(os.path.dirname(record))
        try:
            found = os.lstat(record)
        except FileNotFoundError:  # removed meanwhile (the store was full)
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_uid != os.geteuid():
            raise ToolError(f"{record} is not a file of the server's user (uid {os.geteuid()}): the stored run "
                            f"{run[:12]} was not made by this server; remove {os.path.dirname(record)}")
        try:
            os.utime(record)  # recently used: the last to be removed when the store is full
        except FileNotFoundError:
            return None
        except OSError:  # a store this process may read but not write (a read-only filesystem)
            if not os.path.isfile(record):
                return None
        return os.path.dirname(record)

    def _check(self, down_to: str) -> None:
        """Check every folder from ``<root>/<name>`` down to ``down_to`` (ToolError on the first that fails)."""
        here = self.top
        check_folder(here)
        rest = os.path.relpath(down_to, here)
        for part in rest.split(os.sep) if rest != os.curdir else []:
            here = os.path.join(here, part)
            check_folder(here)

    @staticmethod
    def record_of(directory: str) -> str | None:
        """The URI of the provenance record of the call that ran the stored run in ``directory``, or None
        (none was kept, or the run was stored by an earlier version)."""
        try:
            with open(os.path.join(directory, RUN_FILE), encoding="utf-8") as stream:
                found = json.load(stream).get("record")
        except (OSError, ValueError, AttributeError):
            return None
        return found if isinstance(found, str) else None

    @contextlib.contextmanager
    def claim(self, run: str) -> Iterator[None]:
        """Hold the run id while making it: an identical call waits, then finds the stored run.

        Threads of this process and other processes sharing ``root`` (the workers of ``--workers``, a
        job's process) wait on the claim file ``<root>/.running/<run id>.claim``, removed when the
        holder lets go (see :mod:`.claims`: a process forked while a claim is held does not hold it).
        """
        with claimed(os.path.join(self.root, ".running", f"{os.path.basename(self.path(run))}.claim")):
            yield

    def scratch(self) -> str:
        """A new, empty directory to run in (in this process's folder of ``<root>/.running``)."""
        running = os.path.join(self.root, ".running")
        private_folder(running)
        check_folder(running)  # (one another user made first would hold the kernels' connection files)
        return str(_FOLDERS.make(running))

    def keep(self, scratch: str, run: str, identity: dict[str, Any], started: float, *, replace: bool = False,
             record: str | None = None) -> str:
        """Store the finished run made in ``scratch`` as ``run``; returns its directory.

        An earlier run with the same id is kept (another process stored it meanwhile), unless
        ``replace`` (a Sim2L served with ``cache=False``): then the new run takes its place.
        ``record``: the URI of the provenance record of the call that ran it (:meth:`record_of`).
        """
        record_file = {"run": run, "identity": identity, "started": started, "finished": time.time()}
        if record is not None:
            record_file["record"] = record
        with open(os.path.join(scratch, RUN_FILE), "w", encoding="utf-8") as stream:
            json.dump(record_file, stream, default=str)
        target = self.path(run)
        owner_only_tree(scratch)  # (the kernel wrote its files under the server's umask)
        private_folder(os.path.dirname(self.directory))
        private_folder(self.directory)
        self._check(self.directory)  # (never stored into a folder another user made or put in place)
        if replace and os.path.isdir(target):
            old = os.path.join(self.root, ".running", f"old-{secrets.token_hex(8)}")
            os.rename(target, old)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(scratch, target)
        except OSError:  # stored meanwhile by another process: keep that one
            shutil.rmtree(scratch, ignore_errors=True)
            if self.find(run) is None:
                raise
        finally:
            _FOLDERS.forget(Path(scratch))
        self._prune(keep=run)
        return target

    def _prune(self, keep: str) -> None:
        """Remove the least recently used runs beyond ``max_runs`` (never ``keep``)."""
        try:
            with os.scandir(self.directory) as entries:
                runs = [e.name for e in entries if e.is_dir() and len(e.name) == 64]
        except OSError:
            return
        if len(runs) <= self.max_runs:
            return

        def used(run: str) -> float:
            try:
                return os.stat(os.path.join(self.directory, run, RUN_FILE)).st_mtime
            except OSError:
                return 0.0  # incomplete or gone: first to go

        for run in sorted((r for r in runs if r != keep), key=used)[: len(runs) - self.max_runs]:
            shutil.rmtree(os.path.join(self.directory, run), ignore_errors=True)

    @staticmethod
    def discard(scratch: str) -> None:
        """Remove a run that failed."""
        _FOLDERS.remove(Path(scratch))


def sweep_runs(root: str) -> None:
    """Stop the kernels (and what their cells started) of the runs under ``root`` whose process was killed,
    and remove their scratch folders (:mod:`..run_folders`: Linux finds the processes; the kernels' connection
    files are there too) and the run claims no process holds (:func:`.claims.sweep_claims`), now — the first
    time this process asks, a server registering a Sim2L — and, in a ``--workers`` parent, each time a worker
    died."""
    running = os.path.join(root, ".running")
    key = (os.getpid(), os.path.realpath(running))
    if key not in _claims_swept:
        _claims_swept.add(key)
        sweep_claims(running)
    _FOLDERS.sweep_once(running)
    after_worker_death(_FOLDERS.cleanup(running))
    after_worker_death(_claim_cleanups.setdefault(running, lambda: sweep_claims(running)))


_claims_swept: set[tuple[int, str]] = set()
_claim_cleanups: dict[str, Callable[[], object]] = {}  # one callable per folder: registered once
