"""A route's path pattern is compiled when a request is first matched against it, and then matches as
Tornado's own route does (``transports.routes.FirstUsePath``)."""

from __future__ import annotations

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
from tornado.routing import PathMatches

from nanohubmcp import MCPServer
from nanohubmcp.transports.routes import FirstUsePath


def request(path: str) -> HTTPServerRequest:
    start = RequestStartLine("GET", path, "HTTP/1.1")
    return HTTPServerRequest(start_line=start, headers=HTTPHeaders(Host="localhost"))


@pytest.mark.parametrize("pattern", [r"/mcp/?", r"/tools/([^/]+)/?", r"/\.well-known/oauth-protected-resource(/.*)?",
                                     r"/(?P<name>[a-z]+)/x"])
@pytest.mark.parametrize("path", ["/mcp", "/mcp/", "/mcpx", "/tools/echo", "/tools/a%20b/", "/tools/a/b",
                                  "/.well-known/oauth-protected-resource/App", "/abc/x", "/"])
def test_it_matches_as_tornados_path_matcher_does(pattern: str, path: str) -> None:
    lazy, eager = FirstUsePath(pattern), PathMatches(pattern)
    assert lazy.match(request(path)) == eager.match(request(path))
    assert type(lazy) is PathMatches  # once compiled it is Tornado's own
    assert lazy.regex.pattern == eager.regex.pattern
    assert lazy.match(request(path)) == eager.match(request(path))


def test_it_reverses_as_tornados_path_matcher_does() -> None:
    assert FirstUsePath(r"/tools/([^/]+)/?").reverse("a b") == PathMatches(r"/tools/([^/]+)/?").reverse("a b")
    assert FirstUsePath(r"/healthz").reverse() == "/healthz"


def test_no_route_is_compiled_before_a_request_and_a_request_compiles_only_the_routes_it_passes() -> None:
    app = MCPServer("routes").make_app()
    rules = app.wildcard_router.rules
    assert all(type(rule.matcher) is FirstUsePath for rule in rules)
    assert app.wildcard_router.find_handler(request("/mcp")) is not None
    assert [type(rule.matcher) for rule in rules[:2]] == [PathMatches, FirstUsePath]  # /mcp is the first route
    assert app.wildcard_router.find_handler(request("/healthz")) is not None
    assert all(type(rule.matcher) is PathMatches for rule in rules[:12])  # every route up to /healthz


def test_code_listing_an_apps_routes_reads_each_regex_before_any_request() -> None:
    """review23 N2: ``rule.matcher.regex`` was an AttributeError until a request (or ``reverse()``) compiled it."""
    app = MCPServer("listed").make_app()
    patterns = [rule.matcher.regex.pattern for rule in app.wildcard_router.rules]  # type: ignore[attr-defined]
    assert patterns[0] == r"/mcp/?$"
    assert all(type(rule.matcher) is PathMatches for rule in app.wildcard_router.rules)
    assert app.wildcard_router.find_handler(request("/mcp")) is not None
    assert app.wildcard_router.find_handler(request("/tools/echo")) is not None
