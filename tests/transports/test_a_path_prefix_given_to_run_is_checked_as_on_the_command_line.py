"""``run()``/``start()``/``make_app()`` refuse a ``path_prefix`` that ``--path-prefix`` and ``%config``
refuse: one with a space, a non-ASCII or control character, a ``.``/``..`` segment (escaped or not), an
empty segment inside or a scheme. Found by a fresh-user trial (trial33 W9): the keyword scripts use was
not checked at all, and the server then advertised URLs clients could not reach (404: a client sends
``/a b/`` as ``/a%20b/``, and removes ``..`` before sending). ``//`` was taken as no prefix while ``/a//b`` was
refused (trial38 T8); an escaped unreserved character is written as itself, once, at start (``/%41`` is ``/A``).
"""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.proxy import detect_proxy, override
from nanohubmcp.transports.config import TransportConfig
from nanohubmcp.transports.proxy_option import path_prefix as command_line_prefix


@pytest.mark.parametrize("prefix", ["/a b/", "/a/../b/", "/a/./b/", "/a/%2e%2E/b/", "/ü/", "/a\n/", "/a//b/",
                                    "https://host/tools", "/a\tb",
                                    "//", "///", "//a", "/a//"])  # trial38 T8: '//' was taken as no prefix
def test_what_the_command_line_refuses_run_refuses(prefix: str) -> None:
    server = MCPServer("prefix")
    with pytest.raises(ConfigurationError, match="is not a URL path"):
        server.make_app(path_prefix=prefix)
    with pytest.raises(ConfigurationError, match="is not a URL path"):
        server.start(port=0, path_prefix=prefix)
    with pytest.raises(Exception, match="is not a URL path"):
        command_line_prefix(prefix)


@pytest.mark.parametrize("prefix", ["", "/", "/tools", "tools/", "/weber/1234/AbC-_~/8001/", "/my%20tools",
                                    "/user/ada@example.org/proxy/8000"])
def test_a_url_path_is_served(prefix: str) -> None:
    server = MCPServer("prefix")
    server.make_app(path_prefix=prefix)
    command_line_prefix(prefix)


@pytest.mark.parametrize(("prefix", "normal"), [("/%41", "/A"), ("/weber/%41pp/", "/weber/App"),
                                                ("/a%2fb%7E", "/a%2Fb~"), ("/my%20tools", "/my%20tools")])
def test_an_escaped_unreserved_character_is_written_as_itself(prefix: str, normal: str) -> None:
    assert TransportConfig(path_prefix=prefix).path_prefix == normal
    assert override(detect_proxy({}, port=8000), path_prefix=prefix).path_prefix == normal + "/"  # start_mcp
