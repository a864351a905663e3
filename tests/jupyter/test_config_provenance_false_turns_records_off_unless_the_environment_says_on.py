"""``%config NanohubMCP.provenance = False`` (what docs/how-to/provenance.md tells a notebook user) is a
setting: it is accepted without traitlets' "not recognized" warning, and the kernel's server then writes
no record of a call (no ``io.nanohub/provenance`` in the result, nothing in ``%mcp history``);
``NANOHUBMCP_PROVENANCE=1`` in the kernel's environment wins over it. A fresh-user trial found the
setting missing and records still written. Real kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

TOOL = '%%mcp_tool\ndef add(a: float, b: float) -> float:\n    "Add."\n    return a + b\n'
CALL = 'r = %mcp call add {"a": 1, "b": 2}\nprint("meta:", r.get("_meta", {}).get("io.nanohub/provenance"))'


def test_provenance_false_leaves_no_record(start_kernel: Any, tmp_path: Path) -> None:
    live = start_kernel(NANOHUBMCP_STATE_DIR=str(tmp_path / "state"), MCP_TOKEN="")
    setting = live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n%config NanohubMCP.provenance = False")
    assert "not recognized" not in setting.text
    live.run_ok(TOOL)
    assert "meta: None" in live.run_ok(CALL).stdout
    assert "No calls recorded yet" in live.run_ok("%mcp history").text
    assert "NanohubMCP.provenance=<Bool>" in live.run_ok("%config NanohubMCP").text  # listed among the settings


def test_the_environment_wins_over_the_setting(start_kernel: Any, tmp_path: Path) -> None:
    live = start_kernel(NANOHUBMCP_STATE_DIR=str(tmp_path / "state"), MCP_TOKEN="", NANOHUBMCP_PROVENANCE="1")
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n%config NanohubMCP.provenance = False")
    live.run_ok(TOOL)
    assert "meta: nanohubmcp://provenance/" in live.run_ok(CALL).stdout
    assert " add " in live.run_ok("%mcp history").text
