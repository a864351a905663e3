"""A script exported from a notebook whose server required a bearer token is never served without one,
however it is started (r15 item from an earlier trial: "start_mcp --app doesn't enforce the exported
script's token"). ``python start_mcp.py`` refused to start without ``$MCP_TOKEN``, but ``start_mcp --app
start_mcp.py`` and ``nanohubmcp run start_mcp.py`` import the file and serve its ``server`` without running
its command line: in a tool session the app listened on 0.0.0.0 with no authorization and any client
called its tools. Now both refuse in one line, as the script does; given a token, the served app requires
exactly that one (401 without it, through the stand-in wrwroxy too) and start_mcp names it on its banner
without writing it into a log."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nanohub_standins import Hub, Launch, free_port
from support import mcp_client

pytestmark = pytest.mark.slow

TOKEN = "exported-SECRET-5150"
REFUSAL = ("this server requires a bearer token, as the notebook's server did (its token is not exported): set "
           "MCP_TOKEN to a token of your choice (its clients send it), or pass --token-file PATH (a file only "
           "you can read)")
TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"
WEBER_URL = "https://proxy.hub.example.org/weber/4242/c00kie/123/"
Start = Callable[..., Launch]


def exported(hub: Hub, *config: str) -> Path:
    """``nanohubmcp export`` of a notebook with one tool cell (and ``config`` lines); the script's path."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("\n".join(["%load_ext nanohubmcp", *config])),
                      nbformat.v4.new_code_cell(TOOL)]
    path = hub.root / "analysis.ipynb"
    nbformat.write(notebook, path)
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "export", str(path)], capture_output=True, text=True,
                          timeout=120, env=hub.env(session=False), check=False)
    assert done.returncode == 0, done.stderr
    return hub.root / "start_mcp.py"


def call_status(base: str, token: str | None = None) -> int | None:
    """The HTTP status of a ``tools/call`` of ``add`` POSTed to ``base + "mcp"`` (None: nothing answers)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{base}mcp", data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code
    except OSError:
        return None


async def add_with(url: str, token: str) -> tuple[list[str], str]:
    async with mcp_client(url, token=token) as session:
        names = [tool.name for tool in (await session.list_tools()).tools]
        result = await session.call_tool("add", {"a": 2, "b": 3})
        return names, result.content[0].text


def test_in_a_tool_session_start_mcp_refuses_to_serve_it_without_a_token(hub: Hub, launch: Start) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    script = exported(hub)
    weber, app_port = free_port(), free_port()
    run = launch(["--app", str(script), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", str(app_port)],
                 hub.env(MCP_TOKEN=""))
    assert run.wait(timeout=60) == 2, run.stdout + run.stderr
    assert f"start_mcp: error: {REFUSAL}" in run.stderr.splitlines()
    assert "Traceback" not in run.stderr
    assert "MCP Server ready!" not in run.stdout
    assert "Proxy URL" not in run.stdout
    assert not any(line.startswith("wrwroxy ") for line in hub.log.read_text().splitlines())  # never started
    assert call_status(f"http://127.0.0.1:{app_port}/") is None
    assert call_status(f"http://127.0.0.1:{weber}/") is None
    assert hub.survivors() == []


def test_in_a_tool_session_start_mcp_serves_it_with_the_token_it_is_given_and_only_that(
    hub: Hub, launch: Start
) -> None:
    hub.resources()
    hub.use()
    hub.wrwroxy()
    script = exported(hub)
    weber, app_port = free_port(), free_port()
    run = launch(["--app", str(script), "--host", "127.0.0.1", "--weber-port", str(weber), "--port", str(app_port)],
                 hub.env(MCP_TOKEN=TOKEN))
    assert run.wait_for("Clients send the header"), run.stdout + run.stderr
    assert f"MCP Server ready! Access it at: {WEBER_URL}" in run.stdout
    # Its output is a file here (a tool session's log): the token is named, not written.
    assert "Authorization: Bearer <the token in $MCP_TOKEN>" in run.stdout
    assert TOKEN not in run.stdout + run.stderr
    for base in (f"http://127.0.0.1:{weber}/", f"http://127.0.0.1:{app_port}/"):  # through wrwroxy, and direct
        assert call_status(base) == 401
        assert call_status(base, "another-token") == 401
        assert asyncio.run(asyncio.wait_for(add_with(f"{base}mcp", TOKEN), 30)) == (["add"], "5")


def run_command(script: Path, hub: Hub, *options: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", str(script), "--port", "0", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env=hub.env(session=False, **env), cwd=hub.root)


def test_nanohubmcp_run_refuses_to_serve_it_without_a_token_and_serves_it_with_one(hub: Hub) -> None:
    script = exported(hub)
    refused = run_command(script, hub, MCP_TOKEN="")
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 2, out + err
    assert err.strip() == f"nanohubmcp run: error: {REFUSAL}"

    secret = hub.root / "token"
    secret.write_text(TOKEN + "\n")
    secret.chmod(0o600)
    served = run_command(script, hub, "--token-file", str(secret), MCP_TOKEN="")
    try:
        assert served.stdout is not None
        banner = ""
        while "Streamable HTTP:" not in banner:
            line = served.stdout.readline()
            assert line, served.communicate(timeout=30)
            banner += line
        assert TOKEN not in banner
        url = banner.split("Streamable HTTP:", 1)[1].split()[0]
        assert call_status(url.removesuffix("mcp")) == 401
        assert asyncio.run(asyncio.wait_for(add_with(url, TOKEN), 30)) == (["add"], "5")
    finally:
        served.terminate()
        served.communicate(timeout=30)


def test_a_script_whose_notebook_turned_its_token_off_is_still_served_without_one(hub: Hub, launch: Start) -> None:
    script = exported(hub, "%config NanohubMCP.token = ''")
    port = free_port()
    run = launch(["--app", str(script), "--port", str(port)], hub.env(session=False, MCP_TOKEN=""))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "Clients send the header" not in run.stdout
    assert call_status(f"http://127.0.0.1:{port}/") == 200
