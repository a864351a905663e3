"""A ``%%mcp_tool`` cell in a real kernel, called by the official ``mcp`` client: the call leaves a
provenance record whose code hash is the defining cell's, readable by ``resources/read`` and listed
by ``%mcp history``; with ``--cache`` a repeated call is a hit, and running the cell again (an
edit, or the same text) drops its stored results, so the next call runs the new code."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

CELL = '''%%mcp_tool --cache
def energy(t: float) -> float:
    """The energy at temperature t."""
    return 2 * t
'''


def test_a_cell_tool_call_is_recorded_and_cached_until_the_cell_runs_again(kernel: LiveKernel) -> None:
    kernel.run_ok(CELL)
    url = server_url(kernel)

    async def first_calls() -> tuple[Any, Any, dict[str, Any]]:
        async with mcp_client(url) as client:
            miss = await client.call_tool("energy", {"t": 3})
            hit = await client.call_tool("energy", {"t": 3})
            read = await client.read_resource(miss.meta["io.nanohub/provenance"])
            return miss, hit, json.loads(read.contents[0].text)

    miss, hit, record = run_async(first_calls())
    assert miss.content[0].text == "6.0"
    assert miss.meta["io.nanohub/cache"] == {"hit": False}
    assert hit.meta["io.nanohub/cache"] == {"hit": True}
    assert record["tool"] == "energy"
    assert record["cache"] == "miss"
    body = CELL.split("\n", 1)[1]  # the cell as the magic gets it: without its first line
    assert record["code"]["hash"] == "sha256:" + hashlib.sha256(body.encode()).hexdigest()
    history = kernel.run_ok("%mcp history").stdout
    assert record["id"] in history
    assert "energy" in history
    assert '"tool": "energy"' in kernel.run_ok(f"%mcp history {record['id']}").stdout

    kernel.run_ok(CELL.replace("2 * t", "3 * t"))

    async def after_edit() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool("energy", {"t": 3})

    edited = run_async(after_edit())
    assert edited.content[0].text == "9.0"
    assert edited.meta["io.nanohub/cache"] == {"hit": False}

    kernel.run_ok(CELL.replace("2 * t", "3 * t"))  # the same text again: its entries go all the same
    again = run_async(after_edit())
    assert again.meta["io.nanohub/cache"] == {"hit": False}


HELPER = """
def physics(t):
    return 2 * t
"""

USES_HELPER = '''%%mcp_tool --cache-shared
def heat(t: float) -> float:
    """The heat at temperature t (the physics is in another cell)."""
    return physics(t)
'''


def test_running_a_helpers_cell_with_changed_code_makes_calls_that_reach_it_run_again(kernel: LiveKernel) -> None:
    # A trial finding: after the helper's cell was changed and run again, the tool kept answering the old result.
    kernel.run_ok(HELPER)
    kernel.run_ok(USES_HELPER)
    url = server_url(kernel)

    async def call() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool("heat", {"t": 3})

    assert run_async(call()).meta["io.nanohub/cache"] == {"hit": False}
    assert run_async(call()).meta["io.nanohub/cache"] == {"hit": True}
    kernel.run_ok(HELPER.replace("2 * t", "5 * t"))
    changed = run_async(call())
    assert (changed.content[0].text, changed.meta["io.nanohub/cache"]) == ("15.0", {"hit": False})
    kernel.run_ok(HELPER.replace("2 * t", "5 * t"))  # the helper's cell run again, unchanged: still a hit
    assert run_async(call()).meta["io.nanohub/cache"] == {"hit": True}
