"""The public URL's origin is allowed as browsers send it: without a default port."""

from __future__ import annotations

import pytest

from nanohubmcp.transports.config import TransportConfig
from nanohubmcp.transports.origin import origin_allowed


@pytest.mark.parametrize(("public_url", "origin"), [
    ("https://proxy.hub.test:443/weber/1/x/2/", "https://proxy.hub.test"),
    ("http://proxy.hub.test:80/weber/1/x/2/", "http://proxy.hub.test"),
    ("https://proxy.hub.test:8443/weber/", "https://proxy.hub.test:8443"),
])
def test_the_public_origin_matches_what_browsers_send(public_url: str, origin: str) -> None:
    config = TransportConfig(public_url=public_url)
    assert origin_allowed(origin, config)
    assert not origin_allowed("https://evil.test", config)


@pytest.mark.parametrize("public_url", ["https://h/x\r\nX-Injected: 1", "https://h/ x", "https://h/x\t/"])
def test_a_public_url_with_a_space_or_control_character_is_refused(public_url: str) -> None:
    # trial32 V6: it was taken, and a line break made every 401 a 500 (WWW-Authenticate names it).
    from nanohubmcp import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"^public_url .* holds a (space|control character)"):
        TransportConfig(public_url=public_url)
