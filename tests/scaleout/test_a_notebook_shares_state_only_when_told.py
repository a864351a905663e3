"""A notebook keeps its single-process default (nothing to install or start); a state URL from
``c.NanohubMCP.state_url`` (or ``NANOHUBMCP_STATE_URL``, which wins) shares its sessions in Redis."""

from __future__ import annotations

import pytest
import wire
from redis_server import RedisServer

from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.session import KernelSession
from nanohubmcp.state import ENV_VAR


def test_the_default_is_this_kernel_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    session = KernelSession(NanohubMCP(port=0), notify=lambda text: None)
    assert not session.server.core.state_url.shared
    assert session.server.core.state_url.kind == "memory"


def test_a_configured_state_url_shares_the_sessions(monkeypatch: pytest.MonkeyPatch, redis_server: RedisServer) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    session = KernelSession(NanohubMCP(port=0, state_url=redis_server.url), notify=lambda text: None)
    try:
        session.start()
        url = f"http://127.0.0.1:{session.server.port}/mcp"
        opened = wire.initialize(url)
        assert session.server.core.replication is not None
        assert session.server.core.replication.state.shown == redis_server.url  # no password here
        assert wire.call(url, opened, "tools/list", {}).status_code == 200
    finally:
        session.stop()
    monkeypatch.setenv(ENV_VAR, "memory://")
    assert (
        KernelSession(
            NanohubMCP(port=0, state_url=redis_server.url), notify=lambda text: None
        ).server.core.state_url.kind
        == "memory"
    )
