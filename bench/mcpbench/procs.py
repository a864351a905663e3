"""Server processes under test, and what /proc tells about them (RSS, CPU time, threads).

Each server is spawned in a process group of its own, pinned with ``taskset`` to the server
core; only that group is ever signalled. Figures cover the whole process tree (uvicorn or a
launcher may fork), read from ``/proc/<pid>/{stat,status}`` (Linux only).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        kids.setdefault(parent, []).append(int(entry))
    return kids


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    kids = _children_map()
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(kids.get(current, ()))
    return found


def _status_field(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kib(pid: int) -> int:
    """Resident memory of the process tree, KiB (sum of VmRSS)."""
    return sum(_status_field(p, "VmRSS") for p in tree(pid))


def threads(pid: int) -> int:
    """Threads in the process tree."""
    return sum(_status_field(p, "Threads") for p in tree(pid))


def cpu_seconds(pid: int) -> float:
    """User + system CPU consumed so far by the process tree, seconds (clock-tick resolution)."""
    ticks = 0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / TICKS


def listen_overflows() -> int | None:
    """Host-wide TcpExt ListenOverflows (a full accept queue makes clients wait for a SYN retry)."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            return int(table.get("ListenOverflows", 0))
    return None


class ServerProcess:
    """One server: ``argv`` started in ``cwd``, pinned to ``cpu`` ("0", "0-1", or None)."""

    def __init__(self, argv: list[str], cwd: Path, cpu: str | None, log: Path | None = None) -> None:
        self.argv, self.cwd, self.cpu, self.log = argv, cwd, cpu, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0

    def start(self) -> float:
        """Spawn; returns the ``time.perf_counter()`` just before the spawn."""
        argv = list(self.argv)
        if self.cpu and shutil.which("taskset"):
            argv = ["taskset", "-c", self.cpu, *argv]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if out is not subprocess.DEVNULL:
            out.close()
        return self.started_at

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """SIGTERM the group, SIGKILL after 5 s; the group is this process's own (pgid == pid)."""
        if self.proc is None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(5)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError, PermissionError):  # children that outlived the leader
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc = None

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
