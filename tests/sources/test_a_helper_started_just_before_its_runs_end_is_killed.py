"""A helper a run's program starts a moment before the run ends is killed with the run, also while it is being loaded.

A run's end kills what still carries the run's mark (:func:`nanohubmcp.sources.orphans.stop_marked`, reading
``/proc/<pid>/environ``). ``Popen`` returns once the helper's ``execve`` passed its point of no return, but
``/proc`` shows its new environment (and arguments) only once the program is loaded, up to a few ms later: a scan
in between read an empty environment and the helper ran on, with no time limit (about 1 helper in 100 started just
before the run's end, on an idle host). Now the scan looks again at a process it found being loaded (neither
environment nor arguments in place), until its environment is in place (:data:`~nanohubmcp.sources.orphans.
LOADING_SECONDS` at most).

Real processes, a real ``RunFolders``: runs end just after their helper's ``Popen`` until the scan has caught
:data:`CAUGHT` helpers being loaded (its first read of their environment empty), the environment reads counted by
wrapping ``Path.read_bytes`` (what the scan reads them with), nothing replaced.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest

from nanohubmcp.sources.run_folders import RunFolders

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="found through /proc (Linux)")

MARK = "EXITLEFT_LOADING_RUN"
CAUGHT = 3  # helpers the scan found being loaded (before: each of them ran on)
RUNS = 4000  # at most (about 1 run in 100 catches one; each takes about 15 ms)
SECONDS = 120.0


@pytest.mark.timeout(300)
def test_a_helper_being_loaded_as_its_run_ends_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = RunFolders("exitleft-loading-", MARK)
    reads: dict[int, list[int]] = defaultdict(list)  # pid -> the length of each read of its environment
    real = Path.read_bytes

    def counted(path: Path) -> bytes:
        data = real(path)
        if path.name == "environ" and path.parent.name.isdigit():
            reads[int(path.parent.name)].append(len(data))
        return data

    monkeypatch.setattr(Path, "read_bytes", counted)
    caught, survivors, runs = 0, [], 0
    deadline = time.monotonic() + SECONDS
    while caught < CAUGHT and runs < RUNS and time.monotonic() < deadline and not survivors:
        runs += 1
        run = folders.make(tmp_path / "base", "run-")
        helper = subprocess.Popen(["sleep", "600"], cwd="/", start_new_session=True,
                                  env={**os.environ, MARK: str(run.resolve())})
        folders.remove(run)  # (the run's end, a moment after its program started the helper)
        if reads[helper.pid][:1] == [0]:
            caught += 1
        try:
            helper.wait(5)  # killed by the run's end (which waited for it to go)
        except subprocess.TimeoutExpired:
            survivors.append((helper.pid, reads[helper.pid]))
            helper.kill()
            helper.wait(30)
    monkeypatch.undo()
    assert not survivors, f"run {runs}: a helper being loaded ran on after its run ended (environment reads: " \
                          f"{survivors[0][1]})"
    if caught == 0:
        pytest.skip(f"no run's end found its helper being loaded in {runs} runs (this host loads them too fast)")
    print(f"{runs} runs; {caught} helpers found being loaded, each killed")
