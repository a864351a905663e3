"""A ``JWTVerifier`` server over stdio checks the JWT in ``$MCP_TOKEN`` once, against the issuer's real JWKS
endpoint, before serving: its ``sub`` is every request's caller and its ``scope`` claim what per-tool scopes
check (-32003 without them, as over HTTP). A token it refuses stops the server with one line quoting the failed
check, never the token (trial 19, F4)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from issuer import Issuer
from support import ROOT, official_client, run_command

AUDIENCE = "urn:lab-tools"

APP = '''
import os
from nanohubmcp import Context, JWTVerifier, MCPServer

server = MCPServer("lab-tools", auth=JWTVerifier(
    issuer=os.environ["LAB_ISSUER"], jwks_url=os.environ["LAB_JWKS"], audience="urn:lab-tools"))

@server.tool(scopes=["lab:write"])
def reset_instrument(ctx: Context) -> str:
    """Reset the instrument (needs the lab:write scope)."""
    return f"reset by {ctx.principal.subject}"
'''


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    with Issuer() as running:
        yield running


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "lab_app.py"
    path.write_text(APP)
    return path


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_the_jwt_subject_and_scopes_rule_every_call(issuer: Issuer, app: Path) -> None:
    from mcp.shared.exceptions import MCPError

    where = {"LAB_ISSUER": issuer.url, "LAB_JWKS": issuer.jwks_url}
    writer = issuer.mint(AUDIENCE, subject="alice", scope="lab:read lab:write")
    async with official_client(run_command(app), env={**where, "MCP_TOKEN": writer}) as alice:
        result = await alice.call_tool("reset_instrument", {})
        assert [block.text for block in result.content] == ["reset by alice"]
    reader = issuer.mint(AUDIENCE, subject="bob", scope="lab:read")
    async with official_client(run_command(app), env={**where, "MCP_TOKEN": reader}) as bob:
        with pytest.raises(MCPError) as refused:
            await bob.call_tool("reset_instrument", {})
        assert refused.value.code == -32003
        assert refused.value.data == {"requiredScopes": ["lab:write"]}
    assert issuer.fetches == 2  # once per process, at start


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("claims", "check"), [({"audience": "urn:elsewhere"}, "audience"), ({"lifetime": -3600}, "expiry")]
)
def test_a_refused_jwt_stops_the_server_naming_the_check(
    issuer: Issuer, app: Path, claims: dict[str, object], check: str
) -> None:
    audience = str(claims.pop("audience", AUDIENCE))
    token = issuer.mint(audience, **claims)  # type: ignore[arg-type]
    env = {k: v for k, v in os.environ.items() if k != "MCP_TRANSPORT"}
    env.update(LAB_ISSUER=issuer.url, LAB_JWKS=issuer.jwks_url, MCP_TOKEN=token)
    done = subprocess.run(run_command(app), input=b"", capture_output=True, env=env, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 1, done.stderr.decode()
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "nanohubmcp run: error: the token in MCP_TOKEN was refused by the server's "
        "verifier (JWTVerifier): refused a JWT: the " + check + " check failed"
    )
    assert token not in lines[0]
