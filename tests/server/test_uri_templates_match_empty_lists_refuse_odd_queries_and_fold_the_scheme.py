"""trial20 F9 and F13: what a resource template's variables receive at the edges RFC 6570 and RFC 3986 draw.

- ``star://x{/segs*}`` did not match ``star://x`` (-32002), though RFC 6570 expands an empty list to nothing:
  now it matches and ``segs`` is ``""``, as an exploded value is one ``/``-joined string (``"a/b/../c"``,
  never a list; unchanged and now documented).
- ``q://search{?q,limit}``: ``?q=a&q=b`` silently took ``a``; now -32602 naming ``q`` (as ``prompts/get``
  names a bad argument). ``?limit=7&zz=1`` silently dropped ``zz``; now the URI does not match that
  template (another template may take it; if none does, -32002 naming ``zz`` and the parameters taken).
- ``CONFIG://lab`` was "not found" beside ``config://lab``: the scheme is compared without regard to ASCII
  case (RFC 3986 § 3.1), for fixed resources and templates; the rest of the URI is compared exactly.

Source: RFC 6570 §§ 2.4.2, 3.2.6, 3.2.8 (explode, path segments, query); RFC 3986 § 3.1 (scheme case);
MCP 2025-11-25, Server § Resources § Resource Templates and § Error Handling.
"""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import RpcError, in_memory

RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602


def build() -> tuple[MCPServer, list[str]]:
    """The trial's templates; the second value lists the query-template calls the functions saw."""
    server = MCPServer("edges")
    searched: list[str] = []

    @server.resource("star://x{/segs*}")
    def star(segs: str) -> str:
        return json.dumps(segs)

    @server.resource("exp://{path*}")
    def exp(path: str) -> str:
        return json.dumps(path)

    @server.resource("plus://{+path}")
    def plus(path: str) -> str:
        return json.dumps(path)

    @server.resource("q://search{?q,limit}")
    def search(q: str = "", limit: int = 5) -> str:
        searched.append(q)
        return json.dumps([q, limit])

    @server.resource("q://search{?tag}")
    def by_tag(tag: str) -> str:
        return json.dumps(["tag", tag])

    @server.resource("config://lab")
    def config() -> str:
        return "lab settings"

    @server.resource("Legacy://settings")
    def legacy() -> str:
        return "registered with capitals"

    @server.resource("file://data/{name}")
    def data_file(name: str) -> str:
        return json.dumps(name)

    return server, searched


@pytest.mark.parametrize(
    ("uri", "value"),
    [
        ("star://x", ""),  # an empty list: no segment at all
        ("star://x/", ""),  # one empty segment
        ("star://x/a", "a"),
        ("star://x/a/b/%2E%2E/c", "a/b/../c"),  # one string, decoded: never a list
        ("exp://a/b/../c", "a/b/../c"),
        ("exp://%2Fetc", "/etc"),
        ("plus://a/b%20c/d", "a/b c/d"),
    ],
)
def test_exploded_and_reserved_values_are_one_string_and_an_empty_list_matches(uri: str, value: str) -> None:
    server, _ = build()
    with in_memory(server) as client:
        assert json.loads(client.read_resource(uri)[0]["text"]) == value


def test_a_repeated_query_parameter_is_32602_naming_it_and_the_function_is_not_called() -> None:
    server, searched = build()
    with in_memory(server) as client:
        with pytest.raises(RpcError) as refused:
            client.read_resource("q://search?q=a&limit=2&q=b")
        assert refused.value.code == INVALID_PARAMS
        assert refused.value.message == (
            "Invalid arguments for resource template 'q://search{?q,limit}': q: the query gives it 2 times; "
            "give it once")
        assert refused.value.data == {"uri_template": "q://search{?q,limit}", "variable": "q"}
        assert searched == []
        # ... and it keeps serving: once each is fine, in any order
        assert json.loads(client.read_resource("q://search?limit=2&q=b")[0]["text"]) == ["b", 2]


def test_a_query_parameter_the_template_does_not_name_makes_it_not_match() -> None:
    server, searched = build()
    with in_memory(server) as client:
        # zz is no template's: not found, the message naming it and what the nearest template takes
        with pytest.raises(RpcError) as refused:
            client.read_resource("q://search?limit=7&zz=1")
        assert refused.value.code == RESOURCE_NOT_FOUND
        assert refused.value.message == (
            "Resource not found: q://search?limit=7&zz=1 (the template 'q://search{?q,limit}' takes the query "
            "parameter(s) q, limit, not zz)")
        assert refused.value.data == {"uri": "q://search?limit=7&zz=1", "uri_template": "q://search{?q,limit}",
                                      "unknown": ["zz"]}
        assert searched == []
        # tag is not q://search{?q,limit}'s, but it is the other template's
        assert json.loads(client.read_resource("q://search?tag=red")[0]["text"]) == ["tag", "red"]
        assert json.loads(client.read_resource("q://search?q=a")[0]["text"]) == ["a", 5]


def test_a_not_found_without_a_query_says_what_it_said() -> None:
    server, _ = build()
    with in_memory(server) as client, pytest.raises(RpcError) as refused:
        client.read_resource("nothing://here?zz=1")
    assert (refused.value.code, refused.value.message) == (RESOURCE_NOT_FOUND, "Resource not found: nothing://here?zz=1")
    assert refused.value.data == {"uri": "nothing://here?zz=1"}


@pytest.mark.parametrize(
    ("uri", "text"),
    [
        ("CONFIG://lab", "lab settings"),
        ("Config://lab", "lab settings"),
        ("legacy://settings", "registered with capitals"),
        ("LEGACY://settings", "registered with capitals"),
        ("FILE://data/a.txt", '"a.txt"'),
        ("Star://x/a", '"a"'),
        ("Q://search?q=z", '["z", 5]'),
    ],
)
def test_the_scheme_is_compared_without_regard_to_case(uri: str, text: str) -> None:
    server, _ = build()
    with in_memory(server) as client:
        assert client.read_resource(uri)[0]["text"] == text


@pytest.mark.parametrize("uri", ["config://LAB", "config://Lab", "CONFIG://lab/", "file://DATA/a.txt",
                                 "\u017ftar://x/a"])  # U+017F (long s) folds to "s" only outside ASCII
def test_the_rest_of_the_uri_is_compared_exactly(uri: str) -> None:
    server, _ = build()
    with in_memory(server) as client, pytest.raises(RpcError) as refused:
        client.read_resource(uri)
    assert refused.value.code == RESOURCE_NOT_FOUND


def test_the_2026_era_answers_the_same_cases_with_32602() -> None:
    """SEP-2164: not found is -32602 there; the messages are the same."""
    server, _ = build()
    with in_memory(server, version="2026-07-28") as client:
        assert client.read_resource("star://x")[0]["text"] == '""'
        assert client.read_resource("CONFIG://lab")[0]["text"] == "lab settings"
        for uri, says in [("q://search?q=a&q=b", ": q: the query gives it 2 times"),
                          ("q://search?limit=1&zz=1", "takes the query parameter(s) q, limit, not zz")]:
            with pytest.raises(RpcError) as refused:
                client.read_resource(uri)
            assert refused.value.code == INVALID_PARAMS
            assert says in refused.value.message


@pytest.mark.anyio
async def test_the_official_client_over_http_sees_the_same() -> None:
    server, searched = build()
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            read = await client.read_resource("star://x")
            assert read.contents[0].text == '""'
            read = await client.read_resource("CONFIG://lab")
            assert read.contents[0].text == "lab settings"
            with pytest.raises(MCPError) as refused:
                await client.read_resource("q://search?q=a&q=b")
            assert refused.value.code == INVALID_PARAMS
            assert ": q: the query gives it 2 times; give it once" in refused.value.message
            with pytest.raises(MCPError) as refused:
                await client.read_resource("q://search?limit=7&zz=1")
            assert refused.value.code == RESOURCE_NOT_FOUND
            assert refused.value.message.endswith("takes the query parameter(s) q, limit, not zz)")
            read = await client.read_resource("q://search?limit=7&q=mcp")
            assert read.contents[0].text == '["mcp", 7]'
    assert searched == ["mcp"]


@pytest.mark.parametrize("query", ["", "&", "a", "a=", "=x", "a=b=c", "q=a+b", "q=a%2Bb", "q=%20&&limit=3", "%71=1",
                                   "q=%zz", "q=%C3%A9", "q=%C3", "a+b=c", "q=é;limit=1", "q&q=&q=x"])
def test_the_query_is_read_as_parse_qsl_reads_it(query: str) -> None:
    """The matcher's own reader (a third faster, on every read of a query template) decodes alike."""
    from urllib.parse import parse_qsl

    from nanohubmcp.server.registry.uri_template import query_pairs

    assert query_pairs(query) == parse_qsl(query, keep_blank_values=True)


@pytest.mark.anyio
@pytest.mark.parametrize(("uri", "says"), [
    ("q://search?q=a&q=b", "Invalid arguments for resource template 'q://search{?q,limit}': q: the query gives it "
                           "2 times; give it once"),
    ("q://search?limit=many", "Invalid arguments for resource template 'q://search{?q,limit}': limit: "),
])
@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")  # the 2025-11-25 method, on purpose
async def test_subscribe_refuses_what_read_refuses_with_the_same_error(uri: str, says: str) -> None:
    """Trial22 F5: ``resources/subscribe`` took a repeated query parameter that ``resources/read`` refuses."""
    server, searched = build()
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            errors = []
            for ask in (client.read_resource, client.subscribe_resource):
                with pytest.raises(MCPError) as refused:
                    await ask(uri)
                errors.append((refused.value.code, refused.value.message))
            assert errors[0] == errors[1]
            assert errors[0][0] == INVALID_PARAMS
            assert errors[0][1].startswith(says)
            await client.subscribe_resource("q://search?q=a&limit=2")  # what read takes, subscribe takes
    assert searched == []  # checking a subscription never calls the function


@pytest.mark.parametrize(("uri", "bad"), [("file://data/a%ZZ.txt", "%ZZ"), ("q://search?q=50%", "%"),
                                          ("exp://a/%4g", "%4g")])
def test_a_percent_that_begins_no_escape_is_32602_naming_it(uri: str, bad: str) -> None:
    """Trial22 F6: ``%ZZ`` reached the function as it was, beside values that were decoded."""
    server, searched = build()
    with in_memory(server) as client, pytest.raises(RpcError) as refused:
        client.read_resource(uri)
    assert refused.value.code == INVALID_PARAMS
    assert f': "{bad}" is not a percent-escape (% and two hexadecimal digits); write a % itself as %25' in (
        refused.value.message)
    assert refused.value.data["uri"] == uri
    assert searched == []


def test_an_integer_too_long_to_read_says_so_in_the_users_words() -> None:
    """Trial22 F6: the message was Python's own, naming ``sys.set_int_max_str_digits()``."""
    server, _ = build()
    with in_memory(server) as client, pytest.raises(RpcError) as refused:
        client.read_resource("q://search?limit=" + "9" * 5000)
    assert refused.value.code == INVALID_PARAMS
    assert refused.value.message == (
        "Invalid arguments for resource template 'q://search{?q,limit}': limit: \"" + "9" * 60 + '..." is an '
        f"integer too long to read: at most {sys.get_int_max_str_digits()} digits")
    assert "sys." not in refused.value.message
