"""trial23 F2: a notebook's server requires a bearer token (generated, unless ``%config NanohubMCP.token
= ''``), but its exported ``start_mcp.py`` served every tool with no authorization. The script now
requires one too: run without ``$MCP_TOKEN`` or ``--token-file`` it exits 2 with one line saying how to
give one; given one, a client without it gets 401 and a client with it is served. The notebook's own
token is never written into the script. A notebook that turned its token off exports a script that
serves without one."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export_roundtrip import clean_environment, export, run_script, serve_live
from kernels import run_async
from support import mcp_client

pytestmark = pytest.mark.slow

TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"
MESSAGE = ("start_mcp.py: error: this server requires a bearer token, as the notebook's server did (its token "
           "is not exported): set MCP_TOKEN to a token of your choice (its clients send it), or pass "
           "--token-file PATH (a file only you can read)")


def unauthenticated_status(url: str) -> int:
    request = urllib.request.Request(url, data=b"{}", headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    return refused.value.code


async def tool_names(url: str, token: str | None) -> list[str]:
    async with mcp_client(url, token=token) as session:
        return [tool.name for tool in (await session.list_tools()).tools]


def run_without_a_token(script: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), "--port", "0"], capture_output=True, text=True, timeout=60,
                          env=clean_environment(MCP_TOKEN=""), stdin=subprocess.DEVNULL, check=False)


def test_the_exported_script_of_a_notebook_that_required_a_token_requires_one(
    start_export_kernel: Callable[[], Any], write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    kernel = start_export_kernel()
    kernel.run_ok("import os\nos.environ.pop('MCP_TOKEN', None)")  # the defaults: a generated token
    notebook = write_notebook("%load_ext nanohubmcp", TOOL)
    live = serve_live(kernel, notebook)
    assert unauthenticated_status(live) == 401  # the notebook's server requires its token
    notebook_token = re.match(r"(\S+)\n", kernel.run_ok("%mcp token").text)
    assert notebook_token is not None

    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "Run it with MCP_TOKEN set (the token its clients send): python " in done.stderr
    assert "start_mcp.py, or start_mcp --app " in done.stderr
    script = tmp_path / "start_mcp.py"
    assert notebook_token.group(1) not in script.read_text()

    refused = run_without_a_token(script)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip() == MESSAGE  # one line, no usage, no traceback

    with run_script(script, env={"MCP_TOKEN": "my-own-script-token"}) as url:
        assert unauthenticated_status(url) == 401
        assert run_async(tool_names(url, "my-own-script-token")) == ["add"]

    token_file = tmp_path / "token"
    token_file.write_text("from-a-file-token\n")
    token_file.chmod(0o600)
    with run_script(script, "--host", "127.0.0.1", "--port", "0", "--token-file", str(token_file),
                    env={"MCP_TOKEN": ""}) as url:
        assert unauthenticated_status(url) == 401
        assert run_async(tool_names(url, "from-a-file-token")) == ["add"]


def test_a_notebook_that_turned_its_token_off_exports_a_script_that_serves_without_one(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    notebook = write_notebook("%load_ext nanohubmcp\n%config NanohubMCP.token = ''", TOOL)
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert "MCP_TOKEN set" not in done.stderr
    script = tmp_path / "start_mcp.py"
    assert ("# %config NanohubMCP.token = '': no token, as in the notebook: the script serves without one "
            "unless MCP_TOKEN is set") in script.read_text()
    with run_script(script, env={"MCP_TOKEN": ""}) as url:
        assert run_async(tool_names(url, None)) == ["add"]
