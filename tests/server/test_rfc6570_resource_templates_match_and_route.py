"""Issue 13 "Also fix": RFC 6570 resource templates.

``{+path}`` (reserved, ``/`` included), ``{path*}`` (multi-segment) and ``{?query,...}`` (optional
query parameters in any order) match; several templates that match one URI route to the most
specific; and ``resources/templates/list`` shows every template exactly as written.

Source: RFC 6570 §§ 2-3; MCP 2025-11-25, Server § Resources § Resource Templates.
"""

from __future__ import annotations

import pytest
from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

TEMPLATES = [
    "files://{+path}",
    "files://logs/{name}",
    "tree://{path*}",
    "search://docs{?q,limit}",
    "api://items{/ids*}",
    "pair://{a},{b}",
]


def build() -> MCPServer:
    server = MCPServer("templates")

    @server.resource("files://{+path}")
    def any_file(path: str) -> str:
        return f"file {path}"

    @server.resource("files://logs/{name}")
    def log_file(name: str) -> str:
        return f"log {name}"

    @server.resource("tree://{path*}")
    def tree(path: str) -> str:
        return f"tree {path}"

    @server.resource("search://docs{?q,limit}")
    def search(q: str = "", limit: int = 10) -> str:
        return f"search q={q} limit={limit}"

    @server.resource("api://items{/ids*}")
    def items(ids: str) -> str:
        return f"items {ids}"

    @server.resource("pair://{a},{b}")
    def pair(a: str, b: str) -> str:
        return f"pair {a} {b}"

    return server


@pytest.mark.parametrize(
    ("uri", "text"),
    [
        ("files://etc/hosts", "file etc/hosts"),
        ("files://a/b/c.txt", "file a/b/c.txt"),
        ("files://logs/today", "log today"),  # the more specific template wins
        ("files://logs/2026/today", "file logs/2026/today"),  # {name} is one segment: only {+path} matches
        ("tree://x/y%20z/w", "tree x/y z/w"),
        ("search://docs?limit=3&q=mcp%20spec", "search q=mcp spec limit=3"),
        ("search://docs?q=only", "search q=only limit=10"),
        ("search://docs", "search q= limit=10"),
        ("api://items/1/2/3", "items 1/2/3"),
        ("pair://left,right", "pair left right"),
    ],
)
def test_operators_match_and_the_most_specific_template_answers(uri: str, text: str) -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        answer = wire.request("resources/read", {"uri": uri}, session)
        assert answer["result"]["contents"][0]["text"] == text, answer


def test_templates_are_listed_verbatim() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        listed = wire.request("resources/templates/list", {}, session)["result"]["resourceTemplates"]
        assert sorted(t["uriTemplate"] for t in listed[:-1]) == sorted(TEMPLATES)
        assert listed[-1]["uriTemplate"] == "nanohubmcp://results/{id}{?part}"  # the server's own


@pytest.mark.parametrize("template", ["x://{a", "x://{}", "x://{a}/{a}", "x://{a b}"])
def test_a_malformed_template_is_refused_at_registration(template: str) -> None:
    server = MCPServer("bad")

    def read(a: str = "") -> str:
        return a

    with pytest.raises(RegistrationError, match="resource template"):
        server.resource(template)(read)


def typed_server() -> MCPServer:
    server = MCPServer("typed-templates")

    @server.resource("users://{uid}/posts/{pid}")
    def post(uid: str, pid: int) -> str:
        return f"user {uid} post {pid} ({type(pid).__name__})"

    @server.resource("grid://{x}/{y}{?fine}")
    def grid(x: float, y: float, fine: bool = False) -> str:
        return f"{x!r} {y!r} {fine!r}"

    return server


@pytest.mark.parametrize(
    ("uri", "text"),
    [
        ("users://42/posts/7", "user 42 post 7 (int)"),
        ("grid://1.5/-2?fine=true", "1.5 -2.0 True"),
        ("grid://0/3", "0.0 3.0 False"),
    ],
)
def test_template_variables_arrive_as_their_parameters_types(uri: str, text: str) -> None:
    with serve(typed_server()) as url:
        wire = Wire(url)
        session = wire.initialize()
        answer = wire.request("resources/read", {"uri": uri}, session)
        assert answer["result"]["contents"][0]["text"] == text, answer


@pytest.mark.parametrize(
    ("uri", "variable", "reason"),
    [
        ("users://42/posts/x", "pid", '"x" is not an integer'),
        ("grid://a/1", "x", '"a" is not a number'),
        ("grid://1/1?fine=maybe", "fine", '"maybe" is not a boolean'),
    ],
)
def test_a_variable_its_parameter_cannot_take_is_32602_naming_it(uri: str, variable: str, reason: str) -> None:
    """Checked like a tool's arguments: the function is not called with "x" for ``pid: int``."""
    with serve(typed_server()) as url:
        wire = Wire(url)
        session = wire.initialize()
        answer = wire.request("resources/read", {"uri": uri}, session)
        assert answer["error"]["code"] == -32602, answer
        assert f": {variable}: {reason}" in answer["error"]["message"], answer
