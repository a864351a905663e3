"""A ``%%mcp_tool`` cell whose function is a generator (``yield`` in a ``def`` or an ``async def``; with
``--cache`` or ``--async`` too) is refused at the cell in one line, as ``@server.tool()`` refuses it in a script,
and nothing is registered.

Found by a fresh-user trial (trial73 F1): the cell said "MCP tool 'gen' is ready", every call failed ("a tool
returned a value of type generator, which has no MCP form"), and the exported script stopped at import with a
RegistrationError traceback (the cell's function was wrapped for the kernel before it was registered, so the
server's check saw a plain function).
"""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

CELLS = {
    "gen": ("%%mcp_tool\ndef gen(n: int):\n    yield n\n", "a generator function (def with yield)"),
    "agen": ("%%mcp_tool\nasync def agen(n: int):\n    yield n\n",
             "an async generator function (async def with yield)"),
    "cgen": ("%%mcp_tool --cache\ndef cgen(n: int):\n    yield n\n", "a generator function (def with yield)"),
    "ajob": ("%%mcp_tool --async\ndef ajob(n: int):\n    yield n\n", "a generator function (def with yield)"),
    "named": ("%%mcp_tool --name named\ndef values(n: int):\n    yield n\n", "a generator function (def with yield)"),
}


def test_a_generator_cell_is_a_one_line_usage_error_and_nothing_is_served(kernel: LiveKernel) -> None:
    kernel.run_ok('%%mcp_tool\ndef listed(n: int) -> list[int]:\n    """Values."""\n    return list(range(n))\n')
    for name, (cell, kind) in CELLS.items():
        result = kernel.run(cell)
        assert result.status == "error", name
        assert result.ename == "UsageError", (name, result.ename, result.evalue)
        assert (result.evalue or "").startswith(f"tool '{name}' is {kind}: a call is answered with one value, "), \
            (name, result.evalue)
        assert "\n" not in (result.evalue or ""), name
    url = server_url(kernel)

    async def names() -> Any:
        async with mcp_client(url) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    assert run_async(names()) == ["listed"]
