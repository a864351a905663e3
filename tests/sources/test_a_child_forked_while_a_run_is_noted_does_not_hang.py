"""A process forked while another thread is inside one of the run sources' critical sections does not hang.

The ``processes`` executor forks a job's process from a thread of the server while other threads run Rappture
and Sim2L calls. The lock the run folders are made under (:mod:`nanohubmcp.sources.run_folders`) and the one a
Rappture run notes its program under (:mod:`nanohubmcp.sources.rappture.running`) were not made again in the
child, unlike the package's other module locks: a child forked while another thread held one got it held for
ever, and its job's first run folder (or its program's note) waited for ever (review r27 #6). So did the
Rappture plots' locks (:mod:`nanohubmcp.sources.rappture.plots`): the one matplotlib is imported under, held
for the second of the first import on a thread of its own, and the one its blank figures are kept under.

A real thread is paused inside the real function (a trace function only fixes the interleaving), a real
``os.fork()``; the child calls the same function with an alarm: killed by it, it hung.
"""

from __future__ import annotations

import linecache
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kept_figures import no_figures_kept

from nanohubmcp.sources.rappture import plots, running
from nanohubmcp.sources.run_folders import RunFolders

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")


def _paused_inside(function: str, line: str, call: Callable[[], object]) -> tuple[threading.Thread, threading.Event]:
    """A thread running ``call`` paused at the line of ``function`` holding ``line`` (inside its critical
    section), once this returns; set the event returned to let it go on."""
    inside, go = threading.Event(), threading.Event()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_name != function:
            return None

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line" and line in linecache.getline(frame.f_code.co_filename, frame.f_lineno):
                inside.set()
                go.wait(30)
            return local

        return local

    def run() -> None:
        sys.settrace(tracer)
        try:
            call()
        finally:
            sys.settrace(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert inside.wait(30), "the thread never got inside"
    return thread, go


def _in_a_child(call: Callable[[], object]) -> str:
    """Fork; the child runs ``call`` with 3 s to do it. How the child ended: ``returned``, ``raised``, ``hung``."""
    child = os.fork()
    if child == 0:
        try:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)  # (not a handler of the test runner's)
            signal.alarm(3)
            call()
            os._exit(0)
        finally:
            os._exit(1)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return "hung"
    return "returned" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "raised"


@pytest.mark.timeout(60)
def test_a_child_forked_while_a_run_folder_is_made_makes_its_own(tmp_path: Path) -> None:
    folders = RunFolders("forktest-", "FORKTEST_RUN")
    thread, go = _paused_inside("_parent", "base.mkdir(", lambda: folders.make(tmp_path))
    try:
        assert _in_a_child(lambda: folders.make(tmp_path)) == "returned"
    finally:
        go.set()
        thread.join(30)


@pytest.mark.timeout(60)
def test_a_child_forked_while_a_program_is_noted_notes_its_own() -> None:
    programs = [subprocess.Popen(["sleep", "30"], start_new_session=True) for _ in range(2)]
    try:
        thread, go = _paused_inside("started", "_running[program]", lambda: running.started(programs[0]))
        try:
            assert _in_a_child(lambda: running.started(programs[1])) == "returned"
        finally:
            go.set()
            thread.join(30)
    finally:
        for program in programs:
            running.ended(program)
            program.kill()
            program.wait()


@pytest.mark.timeout(60)
def test_a_child_forked_while_matplotlib_is_imported_for_the_plots_imports_it_itself() -> None:
    pytest.importorskip("matplotlib")
    thread, go = _paused_inside("_library", "import matplotlib.backends.backend_agg", plots._library)
    try:
        assert _in_a_child(plots._library) == "returned"
    finally:
        go.set()
        thread.join(30)


@pytest.mark.timeout(60)
def test_a_child_forked_while_blank_figures_are_kept_prepares_its_own() -> None:
    pytest.importorskip("matplotlib")
    with no_figures_kept():  # (a spare kept by an earlier test in this process: _fill returned at once, ci61)
        _fork_while_filling()


def _fork_while_filling() -> None:
    thread, go = _paused_inside("_fill", "used = next(", lambda: plots._fill(100.0))
    try:
        assert _in_a_child(lambda: plots.prepare(100.0)) == "returned"
    finally:
        go.set()
        thread.join(30)
