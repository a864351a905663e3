"""``/healthz`` and ``/readyz`` answer a load balancer's or Kubernetes' probe without the bearer
token and whatever ``Host`` the probe names (the pod's address), with one word and nothing a
client could use; every other route still wants the token and a name the server answers for
(trial16 F12: with a token configured, nothing answered a probe)."""

from __future__ import annotations

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)


def test_probes_answer_without_a_token_for_any_host_and_nothing_else_does() -> None:
    server = MCPServer("probed")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    with serve(server, token="probe-test-token-123", public_url="https://tools.example.org/"):
        url = f"http://127.0.0.1:{server.port}/"  # server.url is the public one
        pod = {"Host": "10.0.0.7:8000"}
        for path, word in (("healthz", "ok\n"), ("readyz", "ready\n")):
            got = httpx.get(url + path, headers=pod, timeout=10)
            assert got.status_code == 200, got.text
            assert got.text == word
            assert got.headers["Cache-Control"] == "no-store"
            assert got.headers["Content-Type"].startswith("text/plain")
            head = httpx.head(url + path, headers=pod, timeout=10)
            assert head.status_code == 200
            assert head.content == b""
            refused = httpx.post(url + path, headers=pod, timeout=10)
            assert refused.status_code == 405
            assert refused.headers["Allow"] == "GET, HEAD, OPTIONS"
            preflight = httpx.options(url + path, headers=pod, timeout=10)  # as every route (trial17 F7)
            assert preflight.status_code == 204
            assert "GET" in preflight.headers["Access-Control-Allow-Methods"]
        # everything else: the token, and a host this server answers for
        assert httpx.get(url, headers={"Host": "tools.example.org"}, timeout=10).status_code == 401
        assert httpx.get(url, headers=pod, timeout=10).status_code == 421
        card = httpx.get(url + "mcp/server-card", headers={"Host": "tools.example.org"}, timeout=10)
        assert card.status_code == 401
