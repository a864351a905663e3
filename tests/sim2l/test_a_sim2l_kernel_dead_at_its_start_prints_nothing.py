"""A Sim2L run whose kernel ends before it answers ``kernel_info`` (killed by a stop, Ctrl-C while it still
starts, or dying on its own) leaves nothing on the server's stderr: nbclient's "Error occurred while starting
new kernel client" line is logged at DEBUG as the tool's, and the run's error says the kernel died.

Found by a user trial (trial67 F7): Ctrl-C while a Sim2L's kernel was still starting printed jupyter_client's
"Error occurred while starting new kernel client for kernel ...: Kernel died before replying to kernel_info" on
the server's stderr; the stop of a kernel whose cell ran printed nothing, as sim2l.md says.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest
from cooling_variant import COOLING

from nanohubmcp.errors import ToolError
from nanohubmcp.sources.sim2l.execute import run_notebook
from nanohubmcp.sources.sim2l.notebook import read_sim2l
from nanohubmcp.sources.sim2l.values import prepare

pytest.importorskip("papermill")
pytest.importorskip("simtool")

STARTING = "Error occurred while starting new kernel client"


def test_a_kernel_that_dies_before_its_first_reply_is_logged_at_debug(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    kernels = tmp_path / "jupyter" / "kernels" / "ends-at-once"
    kernels.mkdir(parents=True)  # a kernel whose process ends before it answers: as one killed while it starts
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", "import sys; sys.exit(3)", "{connection_file}"],
        "display_name": "ends at once", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    caplog.set_level(logging.DEBUG)
    spec = read_sim2l(COOLING)
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ToolError) as failed:
        run_notebook(spec, prepare(spec, {}, "cool"), str(run), kernel_name="ends-at-once", tool="cool")
    assert "Kernel died before replying to kernel_info" in str(failed.value)
    printed = [r for r in caplog.records if STARTING in r.getMessage() and r.name != "nanohubmcp.sim2l"]
    assert printed == [], "nbclient's line reached the server's stderr"
    logged = [r for r in caplog.records if r.name == "nanohubmcp.sim2l" and STARTING in r.getMessage()]
    assert [r.levelname for r in logged] == ["DEBUG"]
    assert logged[0].getMessage().startswith("the Sim2L tool 'cool' (nbclient): ")
