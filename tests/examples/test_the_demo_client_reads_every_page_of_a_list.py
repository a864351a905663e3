"""scripts/demo_client.py reads every page of each list, following ``nextCursor``: on a server of
``list_page_size=2`` whose first page holds two other tools, ``--tool echo`` is found and called, and every
resource and prompt is listed. Before (trial59 F6), it read the first page only: "the server has no tool named
'echo'" (rc 1). A real server, the script as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from example_process import ROOT
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

CLIENT = ROOT / "scripts" / "demo_client.py"


def build() -> MCPServer:
    server = MCPServer("paged", list_page_size=2)
    for name in ("first", "second"):
        server.tool(name=name, description=f"the {name} tool")(text_of(name))

    @server.tool()
    def echo(text: str) -> str:
        """Echo ``text``."""
        return text

    for n in range(5):
        server.resource(f"data://item/{n}", name=f"item{n}", description=f"item {n}")(text_of(f"item {n} text"))
        server.prompt(name=f"prompt{n}", description=f"prompt {n}")(text_of(f"prompt {n} text"))
    return server


def text_of(text: str) -> Callable[[], str]:
    return lambda: text


def test_a_tool_past_the_first_page_is_called_and_every_entry_listed() -> None:
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    with serve(build()) as url:
        done = subprocess.run([sys.executable, str(CLIENT), url + "mcp", "--tool", "echo", "--arguments",
                               '{"text": "hi from page two"}', "--timeout", "30"], capture_output=True, text=True,
                              timeout=90, stdin=subprocess.DEVNULL, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  - echo(text): Echo ``text``." in done.stdout
    assert "hi from page two" in done.stdout
    for n in range(5):
        assert f"  - data://item/{n} " in done.stdout, done.stdout
        assert f"item {n} text" in done.stdout
        assert f"  - prompt{n}(): prompt {n}" in done.stdout, done.stdout
