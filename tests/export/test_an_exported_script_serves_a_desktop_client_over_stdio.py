"""trial30 T4: an exported ``start_mcp.py`` run over stdio by a desktop client (``MCP_TRANSPORT=stdio python
start_mcp.py``, or ``--transport stdio``) wrote the port-0 note on stdout before any MCP message (the
official client logged a ValidationError for it), and refused to start without ``$MCP_TOKEN`` although a
stdio server has no port to protect. Now stdout carries only MCP messages, the note is not printed over
stdio (and goes to stderr over HTTP), and no token is needed over stdio; over HTTP one still is."""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import clean_environment, export, run_script
from kernels import run_async

pytestmark = pytest.mark.slow

NOTEBOOK = ("%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
            # trial32 V8: a cell's print() at import reached the client's stdout ahead of the MCP messages.
            "print('loading data')",
            "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b")


def without_token(**extra: str) -> dict[str, str]:
    env = clean_environment(**extra)
    env.pop("MCP_TOKEN", None)
    return env


async def over_stdio(script: Path, args: list[str], env: dict[str, str]) -> tuple[list[str], str, str]:
    """The official client runs ``python SCRIPT ARGS`` over stdio: the tools it lists, ``add``'s answer and
    what the script wrote on stderr."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(script), *args], cwd=str(script.parent), env=env)
    with tempfile.TemporaryFile("w+") as errors:
        async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            result = await session.call_tool("add", {"a": 2, "b": 3})
        errors.seek(0)
        return names, result.content[0].text, errors.read()  # type: ignore[union-attr]


@pytest.mark.parametrize(("args", "env"), [([], {"MCP_TRANSPORT": "stdio"}), (["--transport", "stdio"], {})],
                         ids=["MCP_TRANSPORT", "--transport"])
def test_an_exported_script_serves_the_official_stdio_client_without_a_token_or_a_stray_line(
    write_notebook: Callable[..., Path], tmp_path: Path, caplog: pytest.LogCaptureFixture,
    args: list[str], env: dict[str, str],
) -> None:
    done = export(write_notebook(*NOTEBOOK))
    assert done.returncode == 0, done.stderr
    script = tmp_path / "start_mcp.py"
    with caplog.at_level(logging.DEBUG):
        names, answer, stderr = run_async(over_stdio(script, args, without_token(**env)))
    assert names == ["add"]
    assert answer == "5"
    parse_errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert parse_errors == []  # was: "Failed to parse JSONRPC message from server" (the port note)
    assert "Port 0" not in stderr  # no port is opened over stdio
    assert "loading data" in stderr  # what the cells print goes to stderr
    assert "requires a bearer token" not in stderr


def test_over_http_the_port_0_note_goes_to_stderr_and_a_token_is_still_required(
    write_notebook: Callable[..., Path], tmp_path: Path,
) -> None:
    assert export(write_notebook(*NOTEBOOK)).returncode == 0
    script = tmp_path / "start_mcp.py"
    refused = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                             env=without_token(), stdin=subprocess.DEVNULL, check=False)
    assert refused.returncode == 2
    assert "this server requires a bearer token" in refused.stderr
    # trial66 F1: a script that refuses to start says only that, not "serving on any free port, shown below"
    assert refused.stderr.startswith("start_mcp.py: error: this server requires a bearer token"), refused.stderr
    assert "Port 0" not in refused.stderr
    code = (f"import runpy, sys; sys.argv = ['x', '--host', '127.0.0.1']; "
            f"ns = runpy.run_path({str(script)!r}, run_name='exported'); print(ns['_command_line_options']())")
    options = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                             env=clean_environment(MCP_TOKEN="t0ken"), check=True)
    assert options.stdout.splitlines()[-1] == "{'host': '127.0.0.1', 'port': 0, 'transport': 'http', 'token': 't0ken'}"
    assert "Port 0, as in the notebook (%config NanohubMCP.port = 0)" in options.stderr
    with run_script(script, "--host", "127.0.0.1") as url:  # serves, on a free port
        assert url.startswith("http://127.0.0.1:")


def test_a_bad_transport_is_a_usage_error_naming_where_it_came_from(
    write_notebook: Callable[..., Path], tmp_path: Path,
) -> None:
    assert export(write_notebook(*NOTEBOOK)).returncode == 0
    bad = subprocess.run([sys.executable, str(tmp_path / "start_mcp.py")], capture_output=True, text=True,
                         timeout=60, env=without_token(MCP_TRANSPORT="stdoi"), stdin=subprocess.DEVNULL, check=False)
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[-1] == ("start_mcp.py: error: argument --transport: $MCP_TRANSPORT must be http or "
                                           "stdio (stdio: a desktop client starts the server), not 'stdoi'")
