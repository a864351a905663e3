"""The desktop-client JSON blocks of docs/getting-started/desktop.md (once the README's): Claude Desktop /
Cursor ``mcpServers``, VS Code ``servers``; parse, and the command each names, launched as a desktop client
launches it (in ``/``, with ``PATH=/usr/bin:/bin``; the page's checkout ``/home/me/nanohubmcp`` and VS Code's
``${workspaceFolder}`` being this checkout, its ``.venv/bin`` the test's environment), serves the calculator
to the official stdio client: the page's absolute paths are what make it work there (a trial's relative
``examples/simple/start_mcp.py`` and bare ``nanohubmcp`` did not). The ``bridge`` block reaches a running
HTTP example (its URL's port replaced by the one the example got)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from stdio_support import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

PAGE = ROOT / "docs" / "getting-started" / "desktop.md"
BLOCK = re.compile(r"```json\n(.*?)```", re.S)


def readme_configs() -> list[tuple[str, dict[str, Any]]]:
    """(server name, its config) for every server in the section's JSON blocks."""
    section = PAGE.read_text()
    assert "mcpServers" in section, "the desktop-client page has no mcpServers block"
    found = []
    for block in BLOCK.findall(section):
        document = json.loads(block)
        servers = document.get("mcpServers") or document.get("servers")
        assert servers, block
        found.extend(servers.items())
    return found


CHECKOUTS = ("${workspaceFolder}", "/home/me/nanohubmcp")  # how the page names the checkout


def as_here(word: str) -> str:
    """``word`` of the page with its checkout this one, and the checkout's ``.venv/bin`` the test's environment."""
    for checkout in CHECKOUTS:
        word = word.replace(f"{checkout}/.venv/bin/", f"{Path(sys.executable).parent}/")
        word = word.replace(checkout, str(ROOT))
    return word


def launch(config: dict[str, Any], replace: dict[str, str] | None = None) -> tuple[str, list[str], dict[str, str]]:
    """The command line a client would run, with the bare PATH a desktop client gives it."""
    args = [as_here(arg) for arg in config["args"]]
    for old, new in (replace or {}).items():
        args = [arg.replace(old, new) for arg in args]
    keep = ("PYTHONPATH", "HOME", "TMPDIR")  # PYTHONPATH: a worktree's package, when the tests run with one
    env = {**{k: os.environ[k] for k in keep if k in os.environ}, "PATH": "/usr/bin:/bin"}
    return as_here(config["command"]), args, env


def test_the_section_has_a_block_for_each_client_and_the_bridge() -> None:
    configs = readme_configs()
    assert [name for name, _ in configs] == ["calculator", "calculator", "notebook"]
    assert configs[1][1]["type"] == "stdio"  # VS Code's shape


@pytest.mark.parametrize("index", [0, 1])
async def test_each_stdio_block_serves_the_calculator(index: int) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command, args, env = launch(readme_configs()[index][1])
    params = StdioServerParameters(command=command, args=args, env=env, cwd="/")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"


async def test_the_bridge_block_reaches_a_running_server() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from stdio_support import EXAMPLES, served

    with served(EXAMPLES / "simple" / "start_mcp.py") as url:
        command, args, env = launch(readme_configs()[2][1], {"http://127.0.0.1:8000/": url})
        params = StdioServerParameters(command=command, args=args, env=env, cwd=str(ROOT))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"
