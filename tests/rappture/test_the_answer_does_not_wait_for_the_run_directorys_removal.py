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
        [run] = scanned
        assert run.is_dir()  # not removed yet
        assert "outputs" in answers[0]["structuredContent"]
    finally:
        removal_may_go.set()
    wait_until(lambda: not run.exists(), "the run directory removed once the scan went on")
    call.join(10)
