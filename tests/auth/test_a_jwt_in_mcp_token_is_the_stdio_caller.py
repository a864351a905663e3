"""A ``JWTVerifier`` server over stdio checks the JWT in ``$MCP_TOKEN`` once, against the issuer's real JWKS
endpoint, before serving: its ``sub`` is every request's caller and its ``scope`` claim what per-tool scopes
check (-32003 without them, as over HTTP). A token it refuses stops the server with one line quoting the failed
check, never the token (trial 19, F4)."""

from __future__ import annotations

import subprocess

import pytest
from stdio_lab import AUDIENCE, Lab
from support import ROOT, official_client


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_the_jwt_subject_and_scopes_rule_every_call(lab: Lab) -> None:
    from mcp.shared.exceptions import MCPError

    writer = lab.mint(subject="alice", scope="lab:read lab:write")
    async with official_client(lab.command, env=lab.env(writer)) as alice:
        result = await alice.call_tool("reset_instrument", {})
        assert [block.text for block in result.content] == ["reset by alice"]
    reader = lab.mint(subject="bob", scope="lab:read")
    async with official_client(lab.command, env=lab.env(reader)) as bob:
        with pytest.raises(MCPError) as refused:
            await bob.call_tool("reset_instrument", {})
        assert refused.value.code == -32003
        assert refused.value.data == {"requiredScopes": ["lab:write"]}
    assert lab.issuer.fetches == 2  # once per process, at start


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("claims", "check"), [({"audience": "urn:elsewhere"}, "audience"), ({"lifetime": -3600}, "expiry")]
)
def test_a_refused_jwt_stops_the_server_naming_the_check(lab: Lab, claims: dict[str, object], check: str) -> None:
    audience = str(claims.pop("audience", AUDIENCE))
    token = lab.issuer.mint(audience, **claims)  # type: ignore[arg-type]
    done = subprocess.run(
        lab.command, input=b"", capture_output=True, env=lab.process_env(token), cwd=ROOT, timeout=60, check=False
    )
    assert done.returncode == 1, done.stderr.decode()
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "nanohubmcp run: error: the token in MCP_TOKEN was refused by the server's "
        "verifier (JWTVerifier): refused a JWT: the " + check + " check failed"
    )
    assert token not in lines[0]
