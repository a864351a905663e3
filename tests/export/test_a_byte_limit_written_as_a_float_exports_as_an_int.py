"""trial48 MED: a notebook setting ``%config NanohubMCP.max_inline_bytes = 1e5`` (taken by the kernel) was exported as
``MCPServer("nb", ..., max_inline_bytes=100000.0)``, and the script died at import ("max_inline_bytes must be a
non-negative number of bytes, or None"). The export writes the int the kernel holds, and the script starts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from export_roundtrip import SCRIPT_TOKEN, export, run_script
from support import post_rpc

TOOL = "%%mcp_tool\ndef add(a: float, b: float) -> float:\n    \"\"\"Add.\"\"\"\n    return a + b\n"


def test_the_exported_script_holds_ints_and_starts(write_notebook: Callable[..., Path], tmp_path: Path) -> None:
    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.max_kept_bytes = 5.0e6\n"
                              "%config NanohubMCP.max_inline_bytes = 1e5\n%config NanohubMCP.max_result_bytes = 2e6",
                              TOOL)
    done = export(notebook, "-o", str(tmp_path / "start_mcp.py"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "start_mcp.py").read_text()
    assert "max_inline_bytes=100000," in text or "max_inline_bytes=100000)" in text, text
    assert "max_kept_bytes=5000000" in text
    assert "max_result_bytes=2000000" in text
    assert "100000.0" not in text
    with run_script(tmp_path / "start_mcp.py") as url:
        answer = post_rpc(url.removesuffix("mcp"), "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}},
                          headers={"Authorization": f"Bearer {SCRIPT_TOKEN}"})
        assert answer["result"]["isError"] is False, answer
