"""``MCPServer(auth=function)``: a hub's own token check (sync or ``async``) decides; it returns a
subject, a Principal, True, or None/False to refuse."""

from __future__ import annotations

import asyncio
import base64
import logging
from urllib.parse import quote

import httpx2
import pytest
from support import serve

from nanohubmcp import Context, MCPServer, Principal
from nanohubmcp.errors import ConfigurationError


def who(auth: object) -> MCPServer:
    server = MCPServer("hooked", auth=auth)

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The caller."""
        assert ctx.principal is not None
        return f"{ctx.principal.subject} {sorted(ctx.principal.scopes)}"

    return server


def call(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "tools/whoami", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def sync_check(token: str) -> object:
    return {"hub-alice": "alice", "hub-bob": Principal("bob", frozenset({"admin"})), "hub-any": True}.get(token)


async def async_check(token: str) -> object:
    await asyncio.sleep(0)  # e.g. an HTTP call to the hub's own token endpoint
    return sync_check(token)


@pytest.mark.parametrize("check", [sync_check, async_check])
def test_the_hook_names_the_caller_or_refuses(check: object) -> None:
    with serve(who(check)) as url:
        assert call(url, "hub-alice").json()["result"] == "alice []"
        assert call(url, "hub-bob").json()["result"] == "bob ['admin']"
        assert call(url, "hub-any").json()["result"] == "user []"
        refused = call(url, "nope")
        assert refused.status_code == 401
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def raising(token: str) -> object:
    raise RuntimeError("the hub's token endpoint is down")


async def raising_later(token: str) -> object:
    await asyncio.sleep(0)
    raise RuntimeError("the hub's token endpoint is down")


class WrongType:
    def verify(self, token: str) -> object:
        return {"sub": "alice"}


class Raises:
    async def verify(self, token: str) -> object:
        raise RuntimeError("the hub's token endpoint is down")


@pytest.mark.parametrize(("auth", "logged"), [
    (lambda token: 42, "a token check returned int; return a Principal, a subject string or None"),
    (raising, "RuntimeError: the hub's token endpoint is down"),
    (lambda token: {}[token], "raised KeyError: (its message is not logged: it may hold the token)"),
    (raising_later, "RuntimeError: the hub's token endpoint is down"),
    (WrongType(), "returned dict; return a Principal (or None to refuse)"),
    (Raises(), "RuntimeError: the hub's token endpoint is down"),
])
def test_a_verifier_that_raises_or_returns_something_else_refuses_with_401_and_says_why(
        auth: object, logged: str, caplog: pytest.LogCaptureFixture) -> None:
    """trial7 F8: a verifier that raised, or returned a dict or an int, answered 500 ("Internal
    server error"); the token is refused (401, never an open door) and the server's log names the
    verifier's mistake, without the token."""
    caplog.set_level(logging.WARNING, logger="nanohubmcp.auth")
    with serve(who(auth)) as url:
        refused = call(url, "secret-token-value")
        assert refused.status_code == 401, refused.text
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
        text = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records if r.name == "nanohubmcp.auth")
        assert "the token verifier" in text, text
        assert logged in text, text
        assert "secret-token-value" not in text
        assert call(url, "secret-token-value").status_code == 401  # and again: the server goes on


HUB_TOKEN = "Zm9v+YmFy/c2VjcmV0LXRva2Vu=="  # base64-like, as many hub tokens are


def url_encoded(token: str) -> object:
    raise ConnectionError(f"GET https://hub.example/api/check?token={quote(token, safe='')} failed: timeout")


def truncated(token: str) -> object:
    raise KeyError(token[:-1])


def in_basic_auth(token: str) -> object:
    raise PermissionError("sent Authorization: Basic " + base64.b64encode(f"hub:{token}".encode()).decode())


def hex_encoded(token: str) -> object:
    raise ValueError(f"lookup failed for {token.encode().hex()}")


def hex_upper_cut(token: str) -> object:
    raise ValueError(f"digest input {token.encode()[3:15].hex().upper()}")


def bytes_repr(token: str) -> object:
    raise ValueError(f"bad key {('é' + token).encode()!r}")


def about_subjects(token: str) -> object:
    raise ValueError("Principal.subject must be a non-empty string")


@pytest.mark.parametrize(("check", "token", "logged"), [
    (url_encoded, HUB_TOKEN, "raised ConnectionError: (its message is not logged: it may hold the token)"),
    (truncated, HUB_TOKEN, "raised KeyError: (its message is not logged: it may hold the token)"),
    (in_basic_auth, HUB_TOKEN, "raised PermissionError: (its message is not logged: it may hold the token)"),
    (hex_encoded, HUB_TOKEN, "raised ValueError: (its message is not logged: it may hold the token)"),
    (hex_upper_cut, HUB_TOKEN, "raised ValueError: (its message is not logged: it may hold the token)"),
    (bytes_repr, HUB_TOKEN, "raised ValueError: (its message is not logged: it may hold the token)"),
    (about_subjects, "n", "raised ValueError: (its message is not logged: it may hold the token)"),
    (about_subjects, HUB_TOKEN, "raised ValueError: Principal.subject must be a non-empty string"),
])
def test_a_raising_check_never_logs_the_token_in_any_form(
        check: object, token: str, logged: str, caplog: pytest.LogCaptureFixture) -> None:
    """trial14 F13 (and trial40 S9, its hex): only the token's exact text was replaced in the logged message, so a check
    raising with it URL-encoded or cut logged it, and a 1-character token ("n") garbled the message
    ("Pri<the token>cipal...") and so told it. Now a message that may hold the token in any form (or
    any message, for a token under 12 characters) is left out; the type and place are logged."""
    caplog.set_level(logging.WARNING, logger="nanohubmcp.auth")
    with serve(who(check)) as url:
        assert call(url, token).status_code == 401
    text = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records if r.name == "nanohubmcp.auth")
    assert logged in text, text
    assert "<the token>" not in text
    if len(token) > 1:
        for form in (token, quote(token, safe=""), token[:-1], token[:12], quote(token, safe="")[4:16],
                     token.encode().hex()[6:30], token.encode().hex()[6:30].upper()):
            assert form not in text, (form, text)


def test_a_token_over_16_kib_is_refused_unread_and_the_log_says_why(caplog: pytest.LogCaptureFixture) -> None:
    """trial14 F3: a token over the 16 KiB limit got 401 with nothing in the log, while every other
    refusal is logged with its reason. One INFO line gives its length and the limit, not the token."""
    caplog.set_level(logging.INFO, logger="nanohubmcp.auth")
    token = "A" * 20_000
    with serve(who(sync_check)) as url:
        assert call(url, token).status_code == 401
        assert call(url, "hub-alice").json()["result"] == "alice []"
    lines = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.auth"]
    assert lines == ["refused a bearer token of 20000 characters unread: tokens longer than 16384 are refused"]
    assert "AAAAAAAA" not in "\n".join(lines)


def test_auth_must_be_a_verifier_a_function_or_a_token() -> None:
    with pytest.raises(ConfigurationError, match="verify"):
        MCPServer("bad", auth=42)
