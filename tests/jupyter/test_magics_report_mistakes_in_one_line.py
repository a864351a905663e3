"""Mistakes in component cells give one-line UsageErrors, and the previous tool keeps working."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

GOOD = '''%%mcp_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''

MISTAKES = {
    "syntax error": ("%%mcp_tool\ndef add(a, b)\n    return a - b\n", "syntax error on line 2 of the cell"),
    "no function": ("%%mcp_tool\nadd = 42\n", "the cell defines no function"),
    "bad flag": (
        "%%mcp_tool --frobnicate\ndef add(a, b):\n    return a - b\n",
        "unrecognized arguments: --frobnicate",
    ),
    "flag without value": (
        "%%mcp_tool --name\ndef add(a, b):\n    return a - b\n",
        "--name: expected one argument",
    ),
    "several functions": (
        "%%mcp_tool\ndef add(a, b):\n    return a - b\ndef sub(a, b):\n    return a - b\n",
        "the cell defines several functions (add, sub); pick the one to serve with --name (--name add)",
    ),
    "several functions, another --name": (
        "%%mcp_tool --name plus\ndef add(a, b):\n    return a - b\ndef sub(a, b):\n    return a - b\n",
        "none is named 'plus': --name picks the one to serve (--name add); to serve it as 'plus', start the "
        "other functions' names with '_' (helpers) and keep --name plus",
    ),
    "top-level await": (
        "%%mcp_tool\nawait something()\ndef add(a, b):\n    return a - b\n",
        "'await' outside function",
    ),
    "unusable name": (
        "%%mcp_tool --name 'no spaces'\ndef add(a, b):\n    return a - b\n",
        "tool 'no spaces': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); choose another, "
        "e.g. --name no_spaces",  # it said to add the --name the line has (trial12)
    ),
    "reserved name": (
        "%%mcp_tool --name get_job_result\ndef add(a, b):\n    return a - b\n",
        "choose another name, e.g. --name my_job_result",
    ),
    "non-ASCII function name": (
        '%%mcp_tool\ndef größe(a: int) -> int:\n    """Size."""\n    return a\n',
        "tool 'größe': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); "
        "publish this function under another name, e.g. --name grosse",
    ),
    "raising cell": (
        "%%mcp_tool\nraise ValueError('boom')\ndef add(a, b):\n    return a - b\n",
        "the cell raised ValueError; nothing was registered",
    ),
}


def test_every_mistake_is_a_one_line_usage_error_and_the_old_tool_survives(kernel: LiveKernel) -> None:
    kernel.run_ok(GOOD)
    for label, (cell, expected) in MISTAKES.items():
        result = kernel.run(cell)
        assert result.status == "error", label
        assert result.ename == "UsageError", (label, result.ename, result.evalue)
        assert expected in (result.evalue or ""), (label, result.evalue)
        assert "\n" not in (result.evalue or ""), label
    url = server_url(kernel)

    async def call() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool("add", {"a": 2, "b": 3})

    assert run_async(call()).content[0].text == "5"


def test_the_line_magic_rejects_unknown_actions_and_missing_names(kernel: LiveKernel) -> None:
    for line, expected in [
        ("%mcp frobnicate", "invalid choice: 'frobnicate'"),
        ("%mcp remove", "%mcp remove needs a name"),
        ("%mcp remove nothing_here", "no tool, prompt or resource is named 'nothing_here'"),
        ("%mcp url", "the MCP server is not running"),
        ("%mcp stop extra", "%mcp stop takes no argument"),
    ]:
        result = kernel.run(line)
        assert (result.ename, result.status) == ("UsageError", "error"), line
        assert expected in (result.evalue or ""), (line, result.evalue)


def test_a_busy_port_says_so_and_how_to_pick_another(kernel: LiveKernel) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        kernel.run_ok(f"%config NanohubMCP.port = {port}")
        result = kernel.run(GOOD)
        assert result.ename == "UsageError"
        assert f"port {port} on 127.0.0.1 is already in use" in (result.evalue or "")
        assert "%config NanohubMCP.port = 0" in (result.evalue or "")
    # The tool was kept; once a free port is chosen the server starts with it.
    kernel.run_ok("%config NanohubMCP.port = 0")
    started = kernel.run_ok("%mcp start")
    assert "add [pool]" in started.text
