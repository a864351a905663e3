"""``start_mcp --public-url`` / ``--allowed-origins`` (or ``$MCP_PUBLIC_URL``): a proxy that forwards a
host name of its own reaches the app, and the app advertises that URL (trial16 F1: neither launcher
could be told, and the app answered 421 to the proxy's host)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch, free_port

pytestmark = pytest.mark.slow
Start = Callable[..., Launch]


def card(port: int, host: str, origin: str | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": host, **({"Origin": origin} if origin else {})}
    try:
        connection.request("GET", "/mcp/server-card", headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_the_public_url_given_is_answered_and_advertised(hub: Hub, launch: Start) -> None:
    port = free_port()
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--port", str(port), "--allowed-origins", "https://app.example.org"],
                 hub.env(session=False, MCP_PUBLIC_URL="https://tools.example.org/gw"))  # fmt: skip
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "Access it at: https://tools.example.org/gw/" in run.stdout
    status, document = card(port, "tools.example.org", "https://app.example.org")
    assert status == 200, document
    assert document["remotes"][0]["url"] == "https://tools.example.org/gw/mcp"
    assert card(port, "tools.example.org", "https://other.example.org")[0] == 403


def test_a_bad_public_url_is_a_usage_error(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", GOOD_APP)
    run = launch(["--app", str(app), "--public-url", "tools.example.org"], hub.env(session=False))
    assert run.wait() == 2
    assert "argument --public-url: 'tools.example.org' is not an http:// or https:// URL" in run.stderr
