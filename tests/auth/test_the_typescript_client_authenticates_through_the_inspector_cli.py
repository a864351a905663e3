"""The TypeScript SDK client (MCP Inspector CLI) connects with a static token and with a JWT
from a test issuer, over Streamable HTTP and legacy SSE; without a token it is refused."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from inspector import inspector
from issuer import Issuer
from support import serve

from nanohubmcp import Context, JWTVerifier, MCPServer

pytestmark = pytest.mark.slow


def server(**options: object) -> MCPServer:
    built = MCPServer("ts-client", **options)  # type: ignore[arg-type]

    @built.tool()
    def whoami(ctx: Context) -> str:
        """The caller's subject."""
        assert ctx.principal is not None
        return ctx.principal.subject

    return built


def cli(url: str, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    headers = ["--header", f"Authorization: Bearer {token}"] if token else []
    env = {**os.environ, "MCP_CATALOG_PATH": os.devnull}  # keep the CLI out of ~/.mcp-inspector
    return subprocess.run(
        [*inspector(), url, *headers, *args], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def whoami(url: str, token: str | None, transport: str = "http") -> str:
    done = cli(url, "--transport", transport, "--method", "tools/call", "--tool-name", "whoami", token=token)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["content"][0]["text"])


@pytest.fixture(scope="module")
def installed() -> list[str]:
    return inspector()  # install once, before any server starts (npm may take a while the first time)


@pytest.mark.parametrize(("transport", "path"), [("http", "mcp"), ("sse", "sse")])
def test_a_static_token(installed: list[str], transport: str, path: str) -> None:
    with serve(server(), token="ts-token") as url:
        assert whoami(url + path, "ts-token", transport) == "token"
        refused = cli(url + path, "--transport", transport, "--method", "tools/list")
        assert refused.returncode != 0
        # The client saw the 401 and wants an OAuth flow it cannot run without a terminal.
        assert "auth_required" in refused.stderr or "401" in refused.stderr, refused.stderr


def test_a_jwt_from_a_test_issuer(installed: list[str]) -> None:
    with Issuer() as issuer, serve(server(auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))) as url:
        token = issuer.mint(url.rstrip("/"), subject="ts-user", scope="tools")
        assert whoami(url + "mcp", token) == "ts-user"
        assert cli(url + "mcp", "--method", "tools/list", token=issuer.mint("http://elsewhere")).returncode != 0
