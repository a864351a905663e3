"""trial48 LOW: ``nanohubmcp run app.py`` interrupted by Ctrl-C within its first ~0.3 s (while the command, or what
``run`` imports before the app, was still being imported) printed a ``KeyboardInterrupt`` traceback and exited 130,
while the docs say ``nanohubmcp run`` says nothing at a Ctrl-C before it serves. Now every Ctrl-C before it serves
ends it with status 130 and nothing on stderr: in the import of the command (``python -m nanohubmcp`` and the
console script's target, :func:`nanohubmcp.__main__.main`), in ``run``'s imports, and in the app's own import.

Each case interrupts a real process with a real SIGINT at a moment an import hook (or the app) marks, then holds:
no timing guess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support import wait_until

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]

HOOK = """
import importlib.abc
import os
import sys
import time

WANTED = os.environ.get("WORKERSTOP_HOLD_AT")


class Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == WANTED:
            open(os.environ["WORKERSTOP_MARKER"], "w").close()
            for _ in range(600):  # held here until the test's Ctrl-C
                time.sleep(0.05)
        return None


if WANTED:
    sys.meta_path.insert(0, Hold())
"""

APP = """
import os
import time

open(os.environ["WORKERSTOP_MARKER"], "w").close()
for _ in range(600):  # a slow import of the app's own, until the test's Ctrl-C
    time.sleep(0.05)

from nanohubmcp import MCPServer

server = MCPServer("slow")
"""

CONSOLE_SCRIPT = "import sys; from nanohubmcp.__main__ import main; sys.exit(main())"  # as pip writes it


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # (as at a terminal: a background shell's tests may ignore it)


@pytest.mark.parametrize(("entry", "hold_at"), [
    ("module", "nanohubmcp.cli.parser"),
    ("console-script", "nanohubmcp.cli.parser"),
    ("module", "nanohubmcp.nanohub.child"),
    ("module", None),
], ids=["importing-the-command", "importing-the-command-by-its-script", "importing-run's-parts", "importing-the-app"])
def test_a_ctrl_c_before_serving_exits_130_saying_nothing(tmp_path: Path, entry: str, hold_at: str | None) -> None:
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(HOOK)
    (tmp_path / "app.py").write_text(APP)
    marker = tmp_path / "marker"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "hook"), os.environ.get("PYTHONPATH", "")]),
           "WORKERSTOP_MARKER": str(marker), "WORKERSTOP_HOLD_AT": hold_at or ""}
    start = ["-m", "nanohubmcp"] if entry == "module" else ["-c", CONSOLE_SCRIPT]
    proc = subprocess.Popen([sys.executable, *start, "run", "app.py", "--port", "0"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        wait_until(marker.exists, "the import held", 30)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert err == "", err
