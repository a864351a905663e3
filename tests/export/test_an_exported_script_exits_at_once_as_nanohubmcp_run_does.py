"""``python start_mcp.py`` (an exported notebook's script) ends at once on SIGTERM, as ``nanohubmcp run`` of the same
file does: its ``atexit`` handlers run, the interpreter's freeing of the heap the cells built does not (the script
serves inside ``nanohubmcp.cli.ends_as_served``).

Found by a fresh-user trial (trial64 F10): the exported script of a notebook serving a Sim2L and a Rappture tool
took 3-4 s to exit (faulthandler: "Garbage-collecting, <no Python frame>", the freeing of papermill, jupyter, pint,
matplotlib), ``nanohubmcp run`` of it 0.04 s. Here a cell's object whose freeing takes 20 s stands for that heap."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from export_roundtrip import clean_environment
from support import wait_until

from nanohubmcp.jupyter.translate import translate

pytestmark = pytest.mark.slow

HEAP = '''import atexit
import pathlib
import time


class Heap:
    """Freed at the interpreter's exit in 20 s, as a large heap is freed in seconds."""

    def __del__(self, sleep=time.sleep):
        sleep(20)


heap = Heap()
atexit.register(pathlib.Path("atexit-ran").write_text, "yes")'''
TOOL = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Add two integers."""\n    return a + b'


@pytest.mark.timeout(120)
def test_the_exported_script_exits_at_once_on_sigterm_its_atexit_handlers_run(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells.extend(nbformat.v4.new_code_cell(source) for source in (HEAP, TOOL))
    script = tmp_path / "start_mcp.py"
    script.write_text(translate(notebook, source=str(tmp_path / "nb.ipynb"), format_code=False).text)
    log = tmp_path / "output.txt"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-u", str(script), "--port", "0"], stdout=sink,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp_path,
                                   env=clean_environment(MCP_TOKEN="exit-test-token"))
    try:
        wait_until(lambda: "listening on 127.0.0.1:" in log.read_text(errors="replace") or process.poll() is not None,
                   "the script's banner", timeout=90)
        assert process.poll() is None, log.read_text(errors="replace")
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        status = process.wait(60)
        took = time.monotonic() - stopped
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    assert status == 0, log.read_text(errors="replace")
    assert took < 5.0, f"exited {took:.1f} s after SIGTERM (the heap's freeing takes 20 s)"
    assert (tmp_path / "atexit-ran").read_text() == "yes"  # what a program can see of an exit is done
