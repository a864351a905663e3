"""The log line of a result JSON cannot hold names a middleware as its cause only when the server that made it
has one; without one nothing but the server can have made it, and the line says to report it.

trial42 T42-1: bytes in a tool's title made every tools/list -32603 and the log said "a middleware must return
JSON values" on a server with no middleware. Review r22 N4: whether a middleware was added was the process's,
so one server's middleware made every other server in the process (two in a kernel, a test suite) blame "a
middleware" too. Now each server's connection asks its own pipeline.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.connection import Connection
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import in_memory

UNWRITABLE = {"jsonrpc": "2.0", "id": 1, "result": {"x": b"x"}}
SERVERS_CAUSE = ("the result for request 1 cannot be written as JSON (Object of type bytes is not JSON serializable); "
                 "answered -32603: no middleware is installed, so the server made it: please report this as a bug of "
                 "nanohubmcp, with the log line")


def plain(name: str) -> MCPServer:
    server = MCPServer(name)

    @server.tool()
    def one() -> int:
        """One."""
        return 1

    return server


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "cannot be written as JSON" in r.getMessage()]


def test_the_cause_logged_follows_whether_the_servers_own_middleware_is_installed(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "nanohubmcp.server")
    alone = plain("alone")
    assert Connection(alone.core, "memory", alone).received(UNWRITABLE)["error"]["code"] == -32603
    assert logged(caplog) == [SERVERS_CAUSE]

    with_middleware = plain("with-middleware")

    @with_middleware.middleware
    async def bad(request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        return {**result, "x-tags": {1, 2}} if request.method == "tools/list" else result

    caplog.clear()
    with in_memory(with_middleware) as client, pytest.raises(Exception, match="-32603"):
        client.list_tools()
    [line] = logged(caplog)
    assert line.endswith("answered -32603: a middleware must return JSON values (numbers, text, lists, dicts)")
    assert "set" in line

    # the other server in the process still has none: its own message is still its own doing
    caplog.clear()
    assert Connection(alone.core, "memory", alone).received(UNWRITABLE)["error"]["code"] == -32603
    assert logged(caplog) == [SERVERS_CAUSE]
    later = plain("made-later")
    assert Connection(later.core, "memory", later).received(UNWRITABLE)["error"]["code"] == -32603
    assert logged(caplog) == [SERVERS_CAUSE, SERVERS_CAUSE]
