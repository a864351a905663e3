"""The Origin check behind weber: the detected proxy origin is allowed by itself, nothing else is widened.

The server advertises what ``detect_proxy`` found in the fake session
(``https://proxy.hub.test/weber/...``); requests go through nginx, which passes the browser's
``Origin`` header on unchanged. Source: MCP 2025-11-25, Transports § Security Warning
(``allowed_origins`` None admits loopback origins plus the detected public origin).
"""

from __future__ import annotations

import pytest
from proxy_support import HUB_HOST, WEBER_PATH, StartWeber, request

from nanohubmcp.transports.config import TransportConfig
from nanohubmcp.transports.origin import origin_allowed

pytestmark = pytest.mark.slow

PROXY_ORIGIN = f"https://proxy.{HUB_HOST}"
REFUSED = [
    f"https://{HUB_HOST}",  # the hub itself is not the proxy
    f"http://proxy.{HUB_HOST}",  # other scheme
    f"https://proxy.{HUB_HOST}:8443",  # other port
    f"https://x.proxy.{HUB_HOST}",  # a sub-domain
    f"https://proxy.{HUB_HOST}.evil.test",  # a look-alike
    "https://evil.test",
    "null",
]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "page", "version": "0"},
    },
}


def call_with_origin(url: str, origin: str | None) -> int:
    headers = {"Accept": "application/json, text/event-stream"}
    if origin is not None:
        headers["Origin"] = origin
    status, _, _ = request("POST", url, INITIALIZE, headers=headers)
    return status


@pytest.mark.parametrize("setup", ["wrwroxy", "direct"])
def test_the_detected_proxy_origin_is_allowed_and_nothing_else(setup: str, start_weber: StartWeber) -> None:
    weber = start_weber(setup, advertise_detected=True)
    assert weber.server.url == f"{PROXY_ORIGIN}{WEBER_PATH}"
    through_nginx = f"{weber.nginx.origin}{WEBER_PATH}mcp"
    assert call_with_origin(through_nginx, PROXY_ORIGIN) == 200
    assert call_with_origin(through_nginx, PROXY_ORIGIN.upper().replace("HTTPS", "https")) == 200
    assert call_with_origin(through_nginx, None) == 200  # SDK clients, curl
    assert call_with_origin(through_nginx, "http://127.0.0.1:8888") == 200  # a local notebook page
    for origin in REFUSED:
        assert call_with_origin(through_nginx, origin) == 403, origin


def test_an_explicit_origin_list_keeps_the_proxy_origin_and_adds_only_its_entries(
    start_weber: StartWeber,
) -> None:
    weber = start_weber("wrwroxy", advertise_detected=True, allowed_origins=["https://lab.example.org"])
    through_nginx = f"{weber.nginx.origin}{WEBER_PATH}mcp"
    assert call_with_origin(through_nginx, PROXY_ORIGIN) == 200
    assert call_with_origin(through_nginx, "https://lab.example.org") == 200
    for origin in REFUSED:
        assert call_with_origin(through_nginx, origin) == 403, origin


def test_without_a_public_url_only_loopback_origins_pass() -> None:
    config = TransportConfig()
    assert config.extra_origins == set()
    assert origin_allowed("http://localhost:8888", config)
    assert not origin_allowed(PROXY_ORIGIN, config)


def test_the_public_origin_comes_from_the_public_url_not_from_a_fixed_hub() -> None:
    config = TransportConfig(public_url=f"https://proxy.other-hub.example{WEBER_PATH}")
    assert config.extra_origins == {"https://proxy.other-hub.example"}
    assert origin_allowed("https://proxy.other-hub.example", config)
    assert not origin_allowed("https://proxy.nanohub.org", config)
