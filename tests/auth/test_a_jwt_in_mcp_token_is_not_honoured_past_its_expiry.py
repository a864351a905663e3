"""Over stdio the JWT in ``$MCP_TOKEN`` is checked once at start, and honoured until its ``exp`` (plus the
verifier's leeway), not for the rest of the process's life: a request read after it gets the error an HTTP
client gets for an expired token (-32600 "Unauthorized: the bearer token is invalid or expired"), in both
eras and inside a batch, and the server says once on stderr that the token expired and how to start again
with a fresh one. Before, the token kept working until the process ended (stdioauth notes, "Left").

The tokens are real JWTs signed by a test issuer whose key set is served on a loopback port; the servers
are real stdio subprocesses of ``lab_app.py`` (its verifier has no leeway). Each test waits until the clock
has passed the token's expiry, never a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from typing import Any

import anyio
import pytest
from stdio_lab import AUDIENCE, Lab
from support import ROOT

from nanohubmcp import JWTVerifier, Principal, StaticTokenVerifier
from nanohubmcp.errors import ConfigurationError

LIFETIME = 5
"""Seconds a token lives past the whole second it was minted in (4 to 5 s from minting): long enough for the
server to start and answer its first calls on a loaded machine (about 1.2 s on two busy cores), short enough
to wait for."""
REFUSED = {"code": -32600, "message": "Unauthorized: the bearer token is invalid or expired"}
SAID = "the token in MCP_TOKEN expired at"


def _mint(lab: Lab) -> tuple[str, int]:
    expires = int(time.time()) + LIFETIME
    return lab.mint(subject="alice", exp=expires), expires


async def _until(instant: float) -> None:
    """Return once this machine's clock (the server's too) has passed ``instant``."""
    while time.time() <= instant:
        await anyio.sleep(0.05)


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_the_official_client_is_refused_once_the_jwt_expired(lab: Lab) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    token, expires = _mint(lab)
    params = StdioServerParameters(command=lab.command[0], args=lab.command[1:], cwd=str(ROOT), env=lab.env(token))
    with tempfile.TemporaryFile("w+") as errors:  # a real file: the server process writes its stderr to it
        async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert time.time() < expires, "the server took longer to start than the token lives: raise LIFETIME"
            first = await session.call_tool("whoami", {})
            assert [block.text for block in first.content] == ["alice"]

            await _until(expires)
            for _ in range(2):  # every request after the expiry; the stderr line only once
                with pytest.raises(MCPError) as refused:
                    await session.call_tool("whoami", {})
                assert (refused.value.error.code, refused.value.error.message) == (REFUSED["code"], REFUSED["message"])
            with pytest.raises(MCPError) as listing:
                await session.list_tools()
            assert listing.value.error.code == -32600
        errors.seek(0)
        stderr = errors.read()
    said = [line for line in stderr.splitlines() if SAID in line]
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(expires))
    assert said == [
        f"stdio: the token in MCP_TOKEN expired at {when} (its exp claim): every request from now on is refused "
        "(-32600 Unauthorized); start the server again with a fresh token in MCP_TOKEN (a desktop client's entry "
        'holds it in its "env"; `nanohubmcp desktop-config APP --token-file PATH` prints an entry with a new one)'
    ], stderr
    assert token not in stderr


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_stateless_requests_and_batch_members_are_refused_too(lab: Lab) -> None:
    token, expires = _mint(lab)
    server = await asyncio.create_subprocess_exec(
        *lab.command,
        cwd=ROOT,
        env=lab.process_env(token),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 20,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    assert server.stderr is not None

    async def ask(message: Any) -> Any:
        server.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        with anyio.fail_after(30):  # bounds only a server that never answers
            return json.loads(await server.stdout.readline())  # type: ignore[union-attr]

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }
    modern = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "whoami", "arguments": {}, "_meta": meta}}
    hello = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    try:
        assert "result" in await ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert time.time() < expires, "the server took longer to start than the token lives: raise LIFETIME"
        assert (await ask({**modern, "id": 1}))["result"]["content"][0]["text"] == "alice"

        await _until(expires)
        assert await ask({**modern, "id": 2}) == {"jsonrpc": "2.0", "id": 2, "error": REFUSED}
        batch = await ask(
            [
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}},
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
                {"jsonrpc": "2.0", "id": 4, "method": "ping"},
                {"jsonrpc": "1.0", "id": 5, "method": "ping"},  # answered as any invalid member is
            ]
        )
        assert sorted(batch, key=lambda reply: reply["id"]) == [
            {"jsonrpc": "2.0", "id": 3, "error": REFUSED},
            {"jsonrpc": "2.0", "id": 4, "error": REFUSED},
            {
                "jsonrpc": "2.0",
                "id": 5,
                "error": {"code": -32600, "message": 'Invalid Request: "jsonrpc" must be exactly "2.0"'},
            },
        ]
        server.stdin.close()
        with anyio.fail_after(30):
            assert await server.wait() == 0
            stderr = (await server.stderr.read()).decode()
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    assert [line for line in stderr.splitlines() if SAID in line] != []
    assert stderr.count(SAID) == 1


def test_the_expiry_is_the_exp_claim_plus_the_verifiers_leeway() -> None:
    from nanohubmcp.transports.stdio_auth import token_expiry

    jwt_verifier = JWTVerifier(issuer="https://issuer.example", key="unused", audience=AUDIENCE)  # leeway 30 s
    alice = Principal("alice", claims={"exp": 2_000_000_000})
    expiry = token_expiry(alice, jwt_verifier, now=1_000_000_000)
    assert expiry is not None
    assert (expiry.at, expiry.leeway) == (2_000_000_030.0, 30.0)
    # a static token, a claim that is no number, and no claim: no expiry, nothing checked per request
    static = StaticTokenVerifier("alice-token")
    for principal in (
        static.verify("alice-token"),
        Principal("bob", claims={"exp": "soon"}),
        Principal("bob", claims={"exp": True}),
        Principal("bob", claims={"exp": float("nan")}),
    ):
        assert principal is not None
        assert token_expiry(principal, static, now=1_000_000_000) is None
    # a verifier of your own that grants a token already expired: the server does not start
    with pytest.raises(
        ConfigurationError,
        match=r"^the token in MCP_TOKEN expired at 2001-09-09 01:46:40 UTC "
        r"\(its exp claim\): start the server again with a fresh token",
    ):
        token_expiry(Principal("bob", claims={"exp": 1_000_000_000}), static, now=1_000_000_001)
