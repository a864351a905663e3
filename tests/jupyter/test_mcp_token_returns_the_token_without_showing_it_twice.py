"""``%mcp token`` returns the token (it returned None, so ``t = %mcp token`` kept nothing; trial12): a
``str`` for a client the notebook runs, whose ``repr`` does not hold it. A bare ``%mcp token`` shows it
once (not again as the cell's value); the kept value shown as a later cell's value is shown the same way,
until the next cell runs. With no token required, the magic says why, naming the setting that turned it off."""

from __future__ import annotations

import re
from typing import Any

import pytest

from nanohubmcp.jupyter.token_view import HIDDEN

pytestmark = pytest.mark.slow

SHOWN = re.compile(r"(\S+)\n\(shown until the next cell runs")


def test_the_token_is_returned_as_a_str_that_does_not_show_itself_twice(start_kernel: Any) -> None:
    kernel = start_kernel()
    kernel.run_ok("import os\nos.environ.pop('MCP_TOKEN', None)")  # the test session sets MCP_TOKEN=""
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n%mcp start")
    bare = kernel.run_ok("%mcp token").text
    shown = SHOWN.match(bare)
    assert shown is not None, bare
    token = shown.group(1)
    assert bare.count(token) == 1  # not a second time as the cell's value
    kept = kernel.run_ok("t = %mcp token\nprint(repr(t), isinstance(t, str), len(t))").text
    assert kept.count(token) == 1  # shown by the magic, not by the repr
    assert (
        f"<the MCP token: str(value) is the token; %mcp token shows it until the next cell runs> True {len(token)}"
        in kept
    )
    client = kernel.run_ok("os.environ['MCP_TOKEN'] = t\nprint(os.environ['MCP_TOKEN'] == str(t))").text
    assert HIDDEN in client  # the last cell's token output, replaced when this one started
    assert "True\n" in client
    later = kernel.run_ok("t").text
    assert later.count(token) == 1
    assert HIDDEN in kernel.run_ok("1").text  # and hidden again at the next cell


@pytest.mark.parametrize(
    ("setup", "cause"),
    [
        ("%config NanohubMCP.token = ''", "NanohubMCP.token = ''"),
        ("os.environ['MCP_TOKEN'] = ''", "MCP_TOKEN is set but empty"),
    ],
)
def test_with_no_token_required_the_magic_says_which_setting_turned_it_off(
    start_kernel: Any, setup: str, cause: str
) -> None:
    kernel = start_kernel()
    kernel.run_ok("import os\nos.environ.pop('MCP_TOKEN', None)")
    kernel.run_ok(f"%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n{setup}")
    text = kernel.run_ok("r = %mcp token\nprint(repr(r))").text
    assert text == f"The MCP server requires no token ({cause}).\nNone\n"
