"""A route's path pattern is compiled when a request is first matched against it, and then matches and reverses
as Tornado's own route does (``transports.routes.FirstUsePath``, which holds a ``PathMatches`` built at first
use and delegates to it)."""

from __future__ import annotations

import pytest
import tornado.web
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
from tornado.routing import PathMatches, Rule

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
    assert not lazy.compiled
    assert lazy.match(request(path)) == eager.match(request(path))
    assert lazy.compiled
    assert lazy.regex.pattern == eager.regex.pattern
    assert lazy.match(request(path)) == eager.match(request(path))


def test_it_reverses_as_tornados_path_matcher_does() -> None:
    assert FirstUsePath(r"/tools/([^/]+)/?").reverse("a b") == PathMatches(r"/tools/([^/]+)/?").reverse("a b")
    assert FirstUsePath(r"/healthz").reverse() == "/healthz"
    with pytest.raises(ValueError, match="Cannot reverse"):  # as PathMatches: a pattern with no plain path form
        FirstUsePath(r"/x(?:y)?/(a)").reverse("a")


def test_an_application_with_named_routes_reverses_them_through_it() -> None:
    """``Application.reverse_url`` asks a named rule's matcher (Tornado special-cases no matcher class)."""
    app = tornado.web.Application([
        Rule(FirstUsePath(r"/tools/([^/]+)/?"), tornado.web.RequestHandler, name="tool"),
        Rule(FirstUsePath(r"/healthz"), tornado.web.RequestHandler, name="health"),
    ])
    assert app.reverse_url("tool", "a b") == PathMatches(r"/tools/([^/]+)/?").reverse("a b")
    assert app.reverse_url("health") == "/healthz"


def test_no_route_is_compiled_before_a_request_and_a_request_compiles_only_the_routes_it_passes() -> None:
    app = MCPServer("routes").make_app()
    rules = app.wildcard_router.rules
    matchers = [rule.matcher for rule in rules]
    assert all(isinstance(matcher, FirstUsePath) and not matcher.compiled for matcher in matchers)
    assert app.wildcard_router.find_handler(request("/mcp")) is not None
    assert [matcher.compiled for matcher in matchers[:2]] == [True, False]  # type: ignore[attr-defined]  # /mcp first
    assert app.wildcard_router.find_handler(request("/healthz")) is not None
    assert all(matcher.compiled for matcher in matchers[:12])  # type: ignore[attr-defined]  # every route to /healthz
    assert not any(matcher.compiled for matcher in matchers[12:])  # type: ignore[attr-defined]


def test_code_listing_an_apps_routes_reads_each_regex_before_any_request() -> None:
    """review23 N2: ``rule.matcher.regex`` was an AttributeError until a request (or ``reverse()``) compiled it."""
    app = MCPServer("listed").make_app()
    patterns = [rule.matcher.regex.pattern for rule in app.wildcard_router.rules]  # type: ignore[attr-defined]
    assert patterns[0] == r"/mcp/?$"
    assert all(rule.matcher.compiled for rule in app.wildcard_router.rules)  # type: ignore[attr-defined]
    assert app.wildcard_router.find_handler(request("/mcp")) is not None
    assert app.wildcard_router.find_handler(request("/tools/echo")) is not None
