"""``%mcp history ID`` shows one record in full; an id beginning with ``-`` (minted so before ids
never began with one) was read as an unknown option. A real kernel, its record's id rewritten in
its real SQLite store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from kernels import kernel_sharing_state

pytestmark = pytest.mark.slow

TOOL = '%%mcp_tool\ndef double(x: int) -> int:\n    "Double it."\n    return 2 * x\n'


def test_history_shows_the_record_of_a_dashed_id(start_kernel: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    live = kernel_sharing_state(start_kernel, str(state))
    live.run_ok(TOOL)
    live.run_ok('r = %mcp call double {"x": 2}')
    live.run_ok("%mcp stop")  # the record is on disk once the server has stopped
    (database,) = state.rglob("provenance.sqlite3")
    with sqlite3.connect(database) as db:
        (record_id,) = db.execute("SELECT id FROM calls").fetchone()
        dashed = "-" + record_id[1:]
        db.execute("UPDATE calls SET id = ? WHERE id = ?", (dashed, record_id))
    shown = live.run_ok(f"%mcp history {dashed}").text
    assert dashed in shown, shown
    assert "double" in shown, shown
    assert "unrecognized" not in shown, shown
