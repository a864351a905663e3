"""A call whose tool raised (or returned an error result) is recorded as failed with the error it
answered, and its RO-Crate's action names that error: a record said ``error: null`` for a failed
call that ran (left by the trial15 fixes); a job's record already carried its error."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer, ToolError

pytestmark = pytest.mark.timeout(60)


def test_a_failed_call_s_record_carries_its_error_and_a_completed_one_none(tmp_path: Path) -> None:
    server = MCPServer("failing", state_dir=str(tmp_path))

    @server.tool()
    def divide(a: float, b: float) -> float:
        """Quotient."""
        if b == 0:
            raise ToolError("b must not be 0: pick another divisor")
        return a / b

    @server.tool()
    def shout(text: str) -> str:
        """Raises with a long message."""
        raise ValueError("x" * 5000)

    with serve(server):
        failed = server.call("divide", {"a": 1, "b": 0})
        assert failed.is_error
        ok = server.call("divide", {"a": 1, "b": 2})
        long = server.call("shout", {"text": "a"})

    def record(result: object) -> dict[str, object]:
        found = server.core.provenance.find(result["_meta"][PROVENANCE_META].rsplit("/", 1)[1])  # type: ignore[index]
        assert found is not None
        return found

    assert record(failed)["status"] == "failed"
    assert "b must not be 0: pick another divisor" in str(record(failed)["error"])
    assert record(ok)["status"] == "completed"
    assert record(ok).get("error") is None
    error = str(record(long)["error"])
    assert 2000 <= len(error) <= 2001
    assert error.endswith("…")
