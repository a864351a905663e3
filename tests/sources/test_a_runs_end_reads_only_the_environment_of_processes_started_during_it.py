"""A run's end reads the environment of the processes started during the run only (review r28 #4).

A run's end kills what still carries the run's mark (a helper its program started in a session of its own:
:func:`nanohubmcp.sources.orphans.stop_marked`). It read ``/proc/<pid>/environ`` of every process of this user, at
every Rappture call and every Sim2L run: 11 ms a run with 127 processes, 90 to 130 ms with 1,000, on the call's
thread, nearly always to find nothing. A process started before the run cannot carry its mark, so now only
those started since the run began (``/proc/<pid>/stat``'s start time) have their environment read; a helper
started during the run is still found and killed.

Real processes (started before and during the run), a real ``RunFolders``; the environment reads are counted by
wrapping ``Path.read_bytes`` (what the scan reads them with), nothing replaced.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from support import running, wait_until
from swept_folders import SLEEPER

from nanohubmcp.sources.run_folders import RunFolders

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="found through /proc (Linux)")

MARK = "REVFIX_SCAN_RUN"
EARLIER = 20  # processes of this user started before the run


def _ticks_now() -> int:
    """Clock ticks since boot, as /proc/<pid>/stat counts a start time."""
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME) // (1_000_000_000 // os.sysconf("SC_CLK_TCK"))


def _start_time(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[19])


@pytest.mark.timeout(120)
def test_a_runs_end_kills_its_helper_reading_no_earlier_processs_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier = [subprocess.Popen(["sleep", "600"]) for _ in range(EARLIER)]
    started: list[subprocess.Popen[bytes]] = []
    try:
        last = max(_start_time(process.pid) for process in earlier)  # (the run begins a few clock ticks later)
        wait_until(lambda: _ticks_now() > last + 2, "a few clock ticks after the earlier processes started")
        folders = RunFolders("revfix-scan-", MARK)
        run = folders.make(tmp_path / "base", "run-")
        marked = {**os.environ, MARK: str(run.resolve())}
        helper = subprocess.Popen(SLEEPER, cwd="/", start_new_session=True, env=marked)
        other = subprocess.Popen(SLEEPER, cwd="/", start_new_session=True)  # started during the run, unmarked
        started += [helper, other]
        # (Popen returns once the exec began; /proc shows the environment once the program is loaded, a moment on)
        wait_until(lambda: MARK.encode() in Path(f"/proc/{helper.pid}/environ").read_bytes(), "the helper loaded")
        read: list[int] = []
        real = Path.read_bytes

        def counted(path: Path) -> bytes:
            if path.name == "environ" and path.parent.name.isdigit():
                read.append(int(path.parent.name))
            return real(path)

        monkeypatch.setattr(Path, "read_bytes", counted)
        folders.remove(run)
        monkeypatch.undo()

        assert helper.wait(10) == -9  # the helper carrying the run's mark was killed, and waited for
        assert running(other.pid)
        assert not run.exists()
        earlier_read = sorted(set(read) & {process.pid for process in earlier})
        assert not earlier_read, f"the environment of {len(earlier_read)} processes started before the run was read"
        assert {helper.pid, other.pid} <= set(read)  # (those started during it were looked at)
        # (what else was read: the processes the host started meanwhile, as many as a busy shared host starts:
        # no count of them is asserted)
    finally:
        for process in earlier + started:
            process.kill()
        for process in earlier + started:
            process.wait(30)
    wait_until(lambda: not any(running(p.pid) for p in earlier + started), "the test's processes gone")
