"""``%mcp jobs`` lists the jobs this kernel's server ran; a kernel of another notebook whose server
has the same name (the default, "notebook", when the kernel does not know its notebook) shares the
state directory, and its jobs are counted, not listed, unless ``%mcp jobs --all``. A fresh-user
trial found two-hour-old jobs of another notebook listed in a fresh kernel. Two real kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kernels import kernel_sharing_state

TOOL = "%%mcp_tool --async\ndef quick(x: int) -> int:\n    'Double it.'\n    return 2 * x\n"


def test_another_kernels_jobs_are_counted_and_listed_only_with_all(start_kernel: Any, tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    first = kernel_sharing_state(start_kernel, state)
    first.run_ok(TOOL)
    first.run_ok("r = %mcp call quick {\"x\": 2}")
    mine = first.run_ok("%mcp jobs").text
    assert " quick " in mine
    assert "other kernels" not in mine

    second = kernel_sharing_state(start_kernel, state)
    assert second.run_ok("%mcp status").status == "ok"
    fresh = second.run_ok("%mcp jobs").text
    assert "No jobs yet" in fresh
    assert " quick " not in fresh
    assert f"(1 more job of other kernels in {state}, e.g. of this notebook before a restart: " \
           "%mcp jobs --all lists them)" in fresh
    every = second.run_ok("%mcp jobs --all").text
    assert " quick " in every
    assert "other kernels" not in every
    refused = second.run("%mcp tools --all")
    assert refused.ename == "UsageError"
    assert "takes no --all" in (refused.evalue or "")
