"""Over stdio a server with ``auth=`` takes its caller's token from ``$MCP_TOKEN`` (MCP 2025-11-25, Basic §
Authorization: stdio takes credentials from the environment), checks it once before serving, and every request
has that principal: a scoped tool refuses a caller without the scope (-32003, as over HTTP), in both eras. No
token, or a refused one, and the server does not start: one line naming the variable. Without ``auth=`` nothing
is checked (trial 19, F4: the scoped tool ran for anyone, with ``ctx.principal`` None)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from stdio_support import ROOT, official_client, run_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

APP = Path(__file__).resolve().parent / "scoped_app.py"


def _environment(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_TOKEN", "MCP_TRANSPORT", "SCOPED_APP_AUTH")}
    return {**env, **variables}


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def test_the_token_in_mcp_token_is_the_caller_in_the_handshake_era() -> None:
    from mcp.shared.exceptions import MCPError

    async with official_client(run_command(APP), env={"MCP_TOKEN": "alice-token"}) as alice:
        assert _text(await alice.call_tool("whoami", {})) == "alice"
        reset = await alice.call_tool("reset_instrument", {})
        assert not reset.is_error
        assert _text(reset) == "reset by alice"
    async with official_client(run_command(APP), env={"MCP_TOKEN": "bob-token\n"}) as bob:  # a file's newline too
        assert _text(await bob.call_tool("whoami", {})) == "bob"
        with pytest.raises(MCPError) as refused:
            await bob.call_tool("reset_instrument", {})
        assert refused.value.error.code == -32003
        assert "lab:write" in refused.value.error.message
        assert refused.value.error.data == {"requiredScopes": ["lab:write"]}
        assert _text(await bob.call_tool("whoami", {})) == "bob"  # refused, and still serving


async def test_the_token_in_mcp_token_is_the_caller_in_the_stateless_era() -> None:
    import fastmcp
    from fastmcp.client.transports import StdioTransport
    from mcp.shared.exceptions import MCPError

    command = run_command(APP)
    for token, subject in (("alice-token", "alice"), ("bob-token", "bob")):
        transport = StdioTransport(command[0], command[1:], env={"MCP_TOKEN": token}, cwd=str(ROOT), keep_alive=False)
        async with fastmcp.Client(transport) as client:
            assert _text(await client.call_tool("whoami", {})) == subject
            if subject == "alice":
                assert _text(await client.call_tool("reset_instrument", {})) == "reset by alice"
            else:
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("reset_instrument", {})
                assert refused.value.code == -32003
                assert "lab:write" in refused.value.message


@pytest.mark.parametrize(
    ("token", "says"),
    [
        (None, "set MCP_TOKEN"),
        ("", "set MCP_TOKEN"),
        ("eve-token", "the token in MCP_TOKEN was refused by the server's verifier (check)"),
    ],
)
@pytest.mark.parametrize("launch", ["nanohubmcp run", "server.run"])
def test_without_a_valid_token_the_server_does_not_start(token: str | None, says: str, launch: str) -> None:
    env = _environment(**({"MCP_TOKEN": token} if token is not None else {}))
    command = run_command(APP) if launch == "nanohubmcp run" else [sys.executable, str(APP)]
    done = subprocess.run(command, input=b"", capture_output=True, env=env, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout == b""  # nothing for the client: no line of protocol
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, done.stderr.decode()  # one line, no traceback
    assert says in lines[0]
    assert lines[0].startswith("nanohubmcp run: error: " if launch == "nanohubmcp run" else "Error: ")
    assert "eve-token" not in lines[0]  # the refused token is never shown


async def test_without_auth_nothing_is_checked() -> None:
    for env in ({"SCOPED_APP_AUTH": "0"}, {"SCOPED_APP_AUTH": "0", "MCP_TOKEN": "alice-token"}):
        async with official_client(run_command(APP), env=env) as client:
            assert _text(await client.call_tool("whoami", {})) == "anonymous"


def _desktop_config(**variables: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "nanohubmcp", "desktop-config", str(APP)]
    return subprocess.run(
        command, env=_environment(**variables), cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )


async def test_desktop_config_puts_the_token_of_an_auth_app_in_its_entry() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    done = _desktop_config(MCP_TOKEN="alice-token")
    (entry,) = json.loads(done.stdout)["mcpServers"].values()
    assert entry["env"] == {"MCP_TOKEN": "alice-token"}
    assert "alice-token" not in entry["args"]
    # launched as printed (the code under test on the path: a desktop client's bare PATH finds the installed one)
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], cwd=str(ROOT), env={**entry["env"], "PYTHONPATH": str(ROOT)}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert _text(await session.call_tool("reset_instrument", {})) == "reset by alice"

    without = _desktop_config()
    (entry,) = json.loads(without.stdout)["mcpServers"].values()
    assert "env" not in entry
    assert "auth=" in without.stderr  # says what the entry lacks
    assert "MCP_TOKEN" in without.stderr
    unguarded = _desktop_config(MCP_TOKEN="alice-token", SCOPED_APP_AUTH="0")  # no auth=: no token copied
    (entry,) = json.loads(unguarded.stdout)["mcpServers"].values()
    assert "env" not in entry
    assert unguarded.stderr == ""
