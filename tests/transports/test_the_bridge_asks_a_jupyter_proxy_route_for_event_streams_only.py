"""``nanohubmcp bridge`` POSTs with ``Accept: text/event-stream`` alone to a jupyter-server-proxy
route (which streams only such requests) and with both types everywhere else."""

from __future__ import annotations

import pytest

from nanohubmcp.transports.bridge import SSE_ONLY, BridgeOptions

BOTH = "application/json, text/event-stream"


@pytest.mark.parametrize(
    ("url", "accept"),
    [
        ("https://proxy.nanohub.org/weber/4242/c00kie/123/proxy/8000/mcp", SSE_ONLY),
        ("https://hub.example.org/user/ada/proxy/8001/", SSE_ONLY),
        ("https://proxy.nanohub.org/weber/4242/c00kie/123/nanohubmcp/8000/mcp", BOTH),
        ("http://127.0.0.1:8000/mcp", BOTH),
        ("https://example.org/proxy/api/mcp", BOTH),
    ],
)
def test_the_accept_header_follows_the_route(url: str, accept: str) -> None:
    assert BridgeOptions.from_arguments(url, headers=[], cookies=[]).accept == accept
