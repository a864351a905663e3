"""trial24 N4: a tool's ``view=`` naming a URI no ``@server.app_view`` defines was served silently (a host
that shows views found nothing there), and an ``app_view``'s CSP origins went to hosts unchecked. Now
serving (over HTTP and over stdio) warns once per such tool, naming it and the URI; a view defined after
its tool is no mistake. A CSP entry that is not an origin (``scheme://host[:port]``, ``*.`` for
subdomains) is a ``RegistrationError`` naming the view, the kind and what to write.

Source: SEP-1865 "MCP Apps", ``McpUiToolMeta.resourceUri`` and ``McpUiResourceCsp``.
"""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest
from support import run_command, serve

from nanohubmcp import MCPServer, RegistrationError

APP = '''
from nanohubmcp import MCPServer

server = MCPServer("views")


@server.tool(view="ui://charts/missing")
def plot() -> dict:
    """A plot."""
    return {"x": [1]}


@server.tool(view="ui://charts/bars")
def bars() -> dict:
    """Bars."""
    return {"y": [2]}


@server.app_view("ui://charts/bars")  # after the tool naming it: no warning
def bars_view() -> str:
    return "<p>bars</p>"
'''

WARNING = ("tool 'plot' names the view ui://charts/missing (view=), which no @server.app_view defines: a host that "
           "shows views finds nothing there; define it with @server.app_view('ui://charts/missing') or correct the "
           "tool's view=")


def test_serving_over_http_warns_of_each_tool_whose_view_nothing_defines(caplog: pytest.LogCaptureFixture) -> None:
    namespace: dict[str, object] = {}
    exec(APP, namespace)  # our own test app
    server = namespace["server"]
    assert isinstance(server, MCPServer)
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server):
        pass
    assert [r.getMessage() for r in caplog.records if "(view=)" in r.getMessage()] == [WARNING]


def test_serving_over_stdio_warns_on_stderr(tmp_path: Path) -> None:
    app = tmp_path / "views_app.py"
    app.write_text(APP, encoding="utf-8")
    # An empty stdin (a pipe closed at once): the server starts, warns, and ends.
    done = subprocess.run(run_command(app), input="", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if "(view=)" in line] == [WARNING]
    assert done.stdout == "", done.stderr


@pytest.mark.parametrize(
    "origin",
    ["https://cdn.example.org", "wss://live.example.org:8443", "https://*.example.org", "http://localhost:5173",
     "http://127.0.0.1:8000", "http://[::1]:8000", "HTTPS://CDN.Example.org"],
)
def test_origins_are_taken(origin: str) -> None:
    server = MCPServer("csp")
    server.add_app_view("ui://x", "<p>", csp={"connect_domains": [origin], "resourceDomains": origin})
    (content,) = server.core.registry.resources.values()
    assert content.meta == {"ui": {"csp": {"connectDomains": [origin], "resourceDomains": [origin]}}}


@pytest.mark.parametrize(
    ("value", "told"),
    [
        ("https://cdn.example.org/lib.js", "(scheme://host[:port], nothing after it): write 'https://cdn.example.org'"),
        ("https://cdn.example.org/", "(scheme://host[:port], nothing after it): write 'https://cdn.example.org'"),
        ("https://me@cdn.example.org", "(scheme://host[:port], nothing after it): write 'https://cdn.example.org'"),
        ("cdn.example.org", "write scheme://host or scheme://host:port, e.g. 'https://cdn.example.org', or "
                            "'https://*.example.org' for its subdomains"),
        ("data:", "write scheme://host"),
        ("https://*", "write scheme://host"),
        ("https://a.*.example.org", "write scheme://host"),
        ("https://cdn.example.org:99999", "write scheme://host"),
        ("https://cdn example.org", "write scheme://host"),
    ],
)
def test_anything_else_is_refused_at_registration_saying_what_to_write(value: str, told: str) -> None:
    with pytest.raises(RegistrationError) as refused:
        MCPServer("csp").add_app_view("ui://x", "<p>", csp={"resource_domains": ["https://ok.example.org", value]})
    assert str(refused.value).startswith(f"view 'ui://x': csp['resource_domains']: {value!r} is not an origin")
    assert told in str(refused.value)
