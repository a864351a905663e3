"""A ``public_url`` whose path does not end with the ``path_prefix`` the server serves under sends
clients to URLs the server does not answer (unless the proxy adds the prefix): starting says so in
one warning naming the URL to give; a public URL that carries the prefix, or a server without a
prefix, is quiet (trial17 F1: ``--public-url https://tools.example.org/ --path-prefix /tools``
advertised ``https://tools.example.org/mcp``, a 404)."""

from __future__ import annotations

import logging

import pytest
from support import serve

from nanohubmcp import MCPServer


@pytest.mark.parametrize(
    ("public_url", "warned"),
    [("https://tools.example.org/", True), ("https://tools.example.org/tools/", False),
     ("https://hub.example.org/weber/1/c/2/tools", False)],
)
def test_a_public_url_missing_the_prefix_is_one_warning(caplog: pytest.LogCaptureFixture, public_url: str,
                                                        warned: bool) -> None:
    server = MCPServer("prefixed")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server, public_url=public_url,
                                                                      path_prefix="/tools"):
        pass
    lines = [r.getMessage() for r in caplog.records if "does not end with path_prefix" in r.getMessage()]
    if warned:
        assert lines == [
            "public_url https://tools.example.org/ does not end with path_prefix /tools: clients are sent to "
            "https://tools.example.org/mcp, which reaches this server (at /tools/mcp) only if the proxy adds "
            "/tools; if it forwards paths as they are, give public_url=https://tools.example.org/tools/ "
            "(--public-url)"]
    else:
        assert lines == []


@pytest.mark.parametrize(("public_url", "path_prefix"), [
    ("https://tools.example.org/t%6Fols/", "/tools"), ("https://tools.example.org/tools/", "/t%6fols"),
])
def test_a_prefix_spelled_with_an_escaped_unreserved_character_is_the_same(
        caplog: pytest.LogCaptureFixture, public_url: str, path_prefix: str) -> None:
    """``%6F`` is ``o`` (RFC 3986 § 6.2.2.2): the same path, no warning (trial38 T8)."""
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(MCPServer("p"), public_url=public_url,
                                                                      path_prefix=path_prefix):
        pass
    assert [r for r in caplog.records if "does not end with path_prefix" in r.getMessage()] == []
