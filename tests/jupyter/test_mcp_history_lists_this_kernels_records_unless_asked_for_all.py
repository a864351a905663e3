"""``%mcp history`` lists the provenance records this kernel made; another kernel whose server has
the same name (the default "notebook") shares the state directory, and its records are counted below
the table, listed only with ``%mcp history --all`` — the rule ``%mcp jobs`` follows. A fresh-user
trial found other notebooks' calls, of tools this one never had, listed unmarked. Two real kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kernels import kernel_sharing_state

pytestmark = pytest.mark.slow

TOOL = '%%mcp_tool\ndef {name}(x: int) -> int:\n    "Double it."\n    return 2 * x\n'


def test_another_kernels_records_are_counted_and_listed_only_with_all(start_kernel: Any, tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    first = kernel_sharing_state(start_kernel, state)
    first.run_ok(TOOL.format(name="elsewhere"))
    first.run_ok('r = %mcp call elsewhere {"x": 2}')
    assert " elsewhere " in first.run_ok("%mcp history").text

    second = kernel_sharing_state(start_kernel, state)
    second.run_ok(TOOL.format(name="here"))
    second.run_ok('r = %mcp call here {"x": 3}')
    mine = second.run_ok("%mcp history").text
    assert " here " in mine
    assert " elsewhere " not in mine
    assert f"(1 more record of other kernels in {state}, e.g. of this notebook before a restart: " \
           "%mcp history --all lists them)" in mine
    every = second.run_ok("%mcp history --all").text
    assert " here " in every
    assert " elsewhere " in every
    assert "other kernels" not in every
