"""A failure a tool reports (a ``ToolError``: a Rappture program exiting non-zero, a run over its time
limit or cancelled, a tool's own ``raise ToolError``) is one WARNING line on the "nanohubmcp.tool"
logger, without a traceback; an unexpected exception keeps its traceback at ERROR. Calls by the
official client over a real server.

Found by a fresh-user trial (F3): every timeout, cancel or non-zero exit of a Rappture tool left
some 25 lines of traceback in the server log.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, ToolError

FERMI = Path(__file__).resolve().parents[1] / "rappture" / "tools" / "fermi" / "tool.xml"


def _records(caplog: pytest.LogCaptureFixture, tool: str, count: int = 1) -> list[logging.LogRecord]:
    deadline = time.monotonic() + 30
    while True:
        found = [r for r in caplog.records if r.name == "nanohubmcp.tool" and f"tool '{tool}' failed" in r.getMessage()]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.mark.anyio
async def test_tool_errors_are_one_line_and_other_exceptions_keep_their_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("pint")
    server = MCPServer("failures", job_store="memory")

    @server.tool()
    def refuse(reason: str) -> str:
        """Reports a failure the expected way."""
        raise ToolError(f"cannot do that: {reason}")

    @server.tool()
    def crash() -> str:
        """Fails unexpectedly."""
        return str(1 / 0)

    server.add_rappture_tool(FERMI, plot=False)
    caplog.set_level(logging.INFO, logger="nanohubmcp.tool")
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            assert (await client.call_tool("refuse", {"reason": "no"})).is_error
            assert (await client.call_tool("fermi", {"mode": "Exit with an error"})).is_error
            assert (await client.call_tool("crash", {})).is_error

    (refused,) = _records(caplog, "refuse")
    assert refused.levelno == logging.WARNING
    assert refused.exc_info is None
    assert refused.getMessage().endswith("cannot do that: no")
    (rappture,) = _records(caplog, "fermi")
    assert rappture.levelno == logging.WARNING
    assert rappture.exc_info is None
    assert "\n" not in rappture.getMessage()  # the log's end went to the client
    assert "failed (exit status 3)" in rappture.getMessage()
    (crashed,) = _records(caplog, "crash")
    assert crashed.levelno == logging.ERROR
    assert crashed.exc_info is not None  # an unexpected exception: its traceback
