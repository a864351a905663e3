"""``server.require_token(why)``: ``start()``, ``run()`` and ``make_app()`` refuse to serve over HTTP with
no authorization configured (no ``token=``, ``$MCP_TOKEN`` unset or empty, no ``auth=``; ``token=""``
counts as none), saying how to give a token; with one they serve as before. An exported notebook's
script calls it, so ``start_mcp --app`` and ``nanohubmcp run`` cannot serve it open."""

from __future__ import annotations

import httpx2
import pytest

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.errors import ConfigurationError

REFUSAL = ("this server requires a bearer token, as its tools move the stage: set MCP_TOKEN to a token of your "
           "choice (its clients send it), or pass --token-file PATH (a file only you can read)")


def guarded(**options: object) -> MCPServer:
    server = MCPServer("guarded", **options)  # type: ignore[arg-type]
    server.require_token("as its tools move the stage")
    assert server.token_requirement == "as its tools move the stage"
    return server


@pytest.mark.parametrize("mcp_token", [None, ""])
def test_with_no_token_it_does_not_serve(monkeypatch: pytest.MonkeyPatch, mcp_token: str | None) -> None:
    if mcp_token is None:
        monkeypatch.delenv("MCP_TOKEN", raising=False)
    else:
        monkeypatch.setenv("MCP_TOKEN", mcp_token)
    server = guarded()
    with pytest.raises(ConfigurationError) as refused:
        server.start(port=0)
    assert str(refused.value) == REFUSAL
    assert not server.running
    with pytest.raises(ConfigurationError, match="requires a bearer token"):
        server.make_app()
    with pytest.raises(ConfigurationError, match="requires a bearer token"):
        server.run(port=0, quiet=True)


def test_token_empty_string_does_not_turn_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", "from-the-environment")
    with pytest.raises(ConfigurationError, match="requires a bearer token"):
        guarded().make_app(token="")


@pytest.mark.parametrize("how", ["environment", "token=", "auth="])
def test_with_a_token_it_serves_and_requires_it(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    monkeypatch.delenv("MCP_TOKEN", raising=False)
    if how == "environment":
        monkeypatch.setenv("MCP_TOKEN", "stage-token")
    server = guarded(auth=StaticTokenVerifier("stage-token")) if how == "auth=" else guarded()
    server.start(port=0, token="stage-token" if how == "token=" else None)
    try:
        assert httpx2.get(server.url or "", timeout=10).status_code == 401
        ok = httpx2.get(server.url or "", headers={"Authorization": "Bearer stage-token"}, timeout=10)
        assert ok.status_code == 200
    finally:
        server.stop()


def test_a_server_that_does_not_require_one_still_serves_open(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_TOKEN", raising=False)
    server = MCPServer("open")
    assert server.token_requirement is None
    server.start(port=0)
    try:
        assert httpx2.get(server.url or "", timeout=10).status_code == 200
    finally:
        server.stop()
