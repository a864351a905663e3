"""A run's answer does not wait for its run directory's removal.

Issue 28: a Rappture call at most 1.05x its command alone. Removing a run's directory first scans ``/proc`` for
the helpers carrying the run's mark (and waits for one being loaded): 2-20 ms on a busy host, on every call's
path after its program's exit (``bench/rappture_steps.py``). The directory is now removed on a thread of its
own, one at a time, and still removed, helpers first.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from support import wait_until

from nanohubmcp.sources import run_folders
from nanohubmcp.sources.rappture import load_rappture_tool

HERE = Path(__file__).parent
FERMI = HERE / "tools" / "fermi" / "tool.xml"


def test_the_answer_comes_while_the_removal_waits_and_the_directory_goes_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fermi = load_rappture_tool(FERMI, rappture="")
    removal_may_go = threading.Event()
    scanned: list[Path] = []
    real = run_folders.stop_marked

    def slow_scan(mark: str, within: Path, **options: Any) -> list[int]:
        scanned.append(within)
        removal_may_go.wait(30)
        return real(mark, within, **options)

    monkeypatch.setattr(run_folders, "stop_marked", slow_scan)
    answers: list[dict[str, Any]] = []
    call = threading.Thread(target=lambda: answers.append(fermi.run({}, plot=False).to_wire()), daemon=True)
    try:
        call.start()
        wait_until(lambda: answers, "the answer, while the run directory's removal waits", timeout=20)
        # The removal thread may reach its scan only after the answer came (ci73, a loaded host): wait for it.
        [run] = wait_until(lambda: scanned, "the removal thread's scan of the run directory", timeout=20)
        assert run.is_dir()  # not removed yet
        assert "outputs" in answers[0]["structuredContent"]
    finally:
        removal_may_go.set()
    wait_until(lambda: not run.exists(), "the run directory removed once the scan went on")
    call.join(10)


def test_past_the_waiting_bound_a_run_removes_its_own_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs ending faster than their directories go must not pile directories up on disk: past
    ``MAX_WAITING`` queued removals, the run's own thread removes its directory before answering."""
    fermi = load_rappture_tool(FERMI, rappture="")
    removal_may_go = threading.Event()
    scanned: list[tuple[str, Path]] = []
    real = run_folders.stop_marked

    def slow_scan(mark: str, within: Path, **options: Any) -> list[int]:
        scanned.append((threading.current_thread().name, within))
        if threading.current_thread().name == "nanohubmcp-run-removals":
            removal_may_go.wait(30)
        return real(mark, within, **options)

    monkeypatch.setattr(run_folders, "stop_marked", slow_scan)
    monkeypatch.setattr(run_folders, "MAX_WAITING", 1)
    try:
        fermi.run({}, plot=False)  # its removal holds the removal thread
        wait_until(lambda: scanned, "the removal thread at the first run's directory", timeout=20)
        fermi.run({}, plot=False)  # waits in the queue (one waiting: the bound)
        assert len(scanned) == 1
        fermi.run({}, plot=False)  # past the bound: removed by this thread before the answer
        [_, (name, third)] = scanned
        assert name == threading.current_thread().name
        assert not third.exists()
    finally:
        removal_may_go.set()
    first = scanned[0][1]
    wait_until(lambda: not first.exists() and len(scanned) == 3, "the queued removals made once the scan went on")
