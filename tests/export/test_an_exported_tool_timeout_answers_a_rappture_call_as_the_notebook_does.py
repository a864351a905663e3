"""trial51 F15: the export of a notebook with ``%config NanohubMCP.tool_timeout = 2`` and ``%mcp rappture`` serves
``MCPServer(tool_timeout=2.0)``; a Rappture call past it was answered over REST with 500 and "it was abandoned and
may still be running", though its run is stopped. It is answered 504 (a timeout, no server fault) saying the run
was stopped, as the notebook now answers it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import SCRIPT_TOKEN, export, run_start_mcp
from json_posts import post_json

pytestmark = pytest.mark.slow
pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi"


def test_the_exported_script_answers_a_timed_out_rappture_call_504_run_stopped(
    write_notebook: Callable[..., Path], tmp_path: Path,
) -> None:
    shutil.copytree(FERMI, tmp_path / "fermi")
    notebook = write_notebook("%load_ext nanohubmcp", "%config NanohubMCP.tool_timeout = 2",
                              "%mcp rappture fermi/tool.xml --name fermi --timeout 25", name="r.ipynb")
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "tool_timeout=2" in (tmp_path / "start_mcp.py").read_text()
    with run_start_mcp(tmp_path / "start_mcp.py") as url:
        status, body = post_json(url.rsplit("/mcp", 1)[0] + "/tools/fermi", {"mode": "hang"}, 60,
                                 {"Authorization": f"Bearer {SCRIPT_TOKEN}"})
    assert status == 504, (status, body)  # was 500
    assert body["error"].startswith("tool 'fermi' did not finish within 2 s (tool_timeout); its run was stopped")
    assert "abandoned" not in body["error"]
