"""trial22 F6: ``resources/read`` of ``data://%6Cab`` (``%6C`` is ``l``) reached the template ``data://{name}``
though the fixed resource ``data://lab`` is the one it names: RFC 3986 § 6.2.2.2 makes an escaped unreserved
character (letters, digits, ``-._~``) the character itself, and § 6.2.2.1 the hex digits of an escape
case-insensitive. URIs are now compared in that form (fixed resources, templates, a template's own literal
escapes); an escaped reserved character (``%2F``) stays an escape, and the template rules are unchanged.

Source: RFC 3986 §§ 2.3, 6.2.2.1, 6.2.2.2.
"""

from __future__ import annotations

import json

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.protocol.uris import comparison_form, normal_escapes
from nanohubmcp.testing import RpcError, in_memory

RESOURCE_NOT_FOUND = -32002


def build() -> MCPServer:
    server = MCPServer("escapes")

    @server.resource("data://lab")
    def lab() -> str:
        return "fixed lab"

    @server.resource("data://a%2Fb")
    def slash_escaped() -> str:
        return "fixed a%2Fb"

    @server.resource("home://~me/notes")
    def notes() -> str:
        return "fixed notes"

    @server.resource("data://{name}")
    def by_name(name: str) -> str:
        return json.dumps(["template", name])

    @server.resource("home://{user}/notes")
    def user_notes(user: str) -> str:
        return json.dumps(["template", user])

    @server.resource("cafe://caf%c3%a9/{item}")
    def cafe(item: str) -> str:
        return json.dumps(["cafe", item])

    return server


@pytest.mark.parametrize(
    ("uri", "text"),
    [
        ("data://%6Cab", "fixed lab"),
        ("data://%6cab", "fixed lab"),
        ("data://%6C%61%62", "fixed lab"),
        ("DATA://%6Cab", "fixed lab"),
        ("home://%7Eme/notes", "fixed notes"),
        ("home://%7eme/notes", "fixed notes"),
        ("home://~m%65/notes", "fixed notes"),
        ("data://a%2fb", "fixed a%2Fb"),  # hex case only: %2F stays an escape
        ("data://a%2Fb", "fixed a%2Fb"),
    ],
)
def test_an_escaped_unreserved_character_names_the_fixed_resource(uri: str, text: str) -> None:
    with in_memory(build()) as client:
        assert client.read_resource(uri)[0]["text"] == text


@pytest.mark.parametrize(
    ("uri", "answer"),
    [
        ("data://%6Cib", ["template", "lib"]),
        ("data://x%41y", ["template", "xAy"]),
        ("data://x%20y", ["template", "x y"]),  # a space is not unreserved: an escape, decoded for the value
        ("home://%7Eyou/notes", ["template", "~you"]),
        ("cafe://caf%C3%A9/tea", ["cafe", "tea"]),  # the template's own escapes compare alike
        ("cafe://caf%c3%a9/t%65a", ["cafe", "tea"]),
    ],
)
def test_templates_still_take_what_no_fixed_resource_names(uri: str, answer: list[str]) -> None:
    with in_memory(build()) as client:
        assert json.loads(client.read_resource(uri)[0]["text"]) == answer


@pytest.mark.parametrize("uri", ["data://a/b", "data://..%2Fetc", "data://%2E%2E", "data://%2e", "data://a%2Fc"])
def test_reserved_escapes_and_dot_segments_stay_refused(uri: str) -> None:
    with in_memory(build()) as client, pytest.raises(RpcError) as refused:
        client.read_resource(uri)
    assert refused.value.code == RESOURCE_NOT_FOUND
    assert refused.value.data["uri"] == uri  # the URI as the client wrote it


def test_the_comparison_form() -> None:
    assert normal_escapes("data://%6Cab%7e%2fx%zz") == "data://lab~%2Fx%zz"
    plain = "data://lab"
    assert normal_escapes(plain) is plain
    assert comparison_form("DATA://%41%2d%5F%2E") == "data://A-_."
