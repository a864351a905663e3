"""``params.task.ttl`` (MCP 2025-11-25, Utilities § Tasks: the milliseconds to keep the task, which the
receiver may shorten): a positive number is kept up to the server's ``job_ttl_seconds`` and anything
longer — a 400-digit integer, ``1e308`` — is cut to it, the task answering the ttl it got; ``null`` or no
ttl is the server's own; a string, a boolean, zero or a negative number is -32602 naming what to send.
A 400-digit integer was -32603 (``float()`` overflowed), and ``"x"`` or ``-5`` silently the default
(trial31 S2).

A ttl is a whole number of milliseconds: a fraction of one is kept as the next whole one, so the smallest
ttl kept is 1 ms. ``0.0001`` and ``1e-300`` answered ``"ttl": 0`` (a value the server refuses), ``5e-324``
the server's default, ``1.5`` answered 1 and ``1001`` answered 1000 (trial33 W3)."""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import INVALID_PARAMS
from nanohubmcp.testing import RpcError, in_memory


def build() -> MCPServer:
    server = MCPServer("task-ttls", job_store="memory", job_ttl_seconds=600)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    return server


@pytest.mark.parametrize(("task", "kept"), [
    ({"ttl": 60000}, 60000),
    ({"ttl": 2500.0}, 2500),
    ({"ttl": int("9" * 400)}, 600000),
    ({"ttl": 1e308}, 600000),
    ({"ttl": None}, 600000),
    ({}, 600000),
])
def test_a_positive_ttl_is_kept_up_to_the_servers_own(task: dict[str, Any], kept: float) -> None:
    with in_memory(build(), capabilities={}) as client:
        created = client.call_tool("work", {"n": 1}, task=task)["task"]
        assert created["ttl"] == pytest.approx(kept)
        assert client.request("tasks/get", {"taskId": created["taskId"]})["ttl"] == pytest.approx(kept)


@pytest.mark.parametrize(("ttl", "kept"), [
    (0.0001, 1), (1e-300, 1), (5e-324, 1), (1.5, 2), (1001, 1001), (1001.0, 1001), (59999.25, 60000),
])
def test_a_ttl_is_kept_as_whole_milliseconds_rounded_up(ttl: float, kept: int) -> None:
    with in_memory(build(), capabilities={}) as client:
        created = client.call_tool("work", {"n": 1}, task={"ttl": ttl})["task"]
        assert created["ttl"] == kept
        assert isinstance(created["ttl"], int)


@pytest.mark.parametrize("ttl", ["x", "60000", True, 0, -5, -1e308, [60000], {"ms": 1}])
def test_a_ttl_that_is_no_positive_number_is_invalid_params(ttl: object) -> None:
    with in_memory(build(), capabilities={}) as client:
        with pytest.raises(RpcError) as refused:
            client.call_tool("work", {"n": 1}, task={"ttl": ttl})
        assert refused.value.code == INVALID_PARAMS
        assert refused.value.message == ("tools/call params.task.ttl must be a positive number of milliseconds, "
                                         "e.g. {\"ttl\": 60000}, or left out for the server's own")
        assert client.request("tasks/list")["tasks"] == []  # no task was made
