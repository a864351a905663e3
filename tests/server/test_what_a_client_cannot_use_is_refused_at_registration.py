"""What a list publishes of a component and a client cannot use is refused when it is registered, naming the
field and what to write instead; what is accepted lists, reads and gets in the official ``mcp`` client.

trial44: a resource URI or prompt name holding a lone surrogate registered, was listed as U+FFFD and could
then never be read or got (T44-1); with Python's int-digit limit lifted, an int of 5,001 digits in ``meta``
or a default registered and ``tools/list`` failed in the official client, "number out of range" (T44-11);
a MIME type of ``"text/plain\\r\\nX-Evil: 1"``, ``""`` or ``"not a mime"``, a ``lastModified`` of
``"yesterday"`` and an unknown resource annotation were published (T44-2); icons of ``javascript:`` or an
empty ``src`` were published (T44-3), and an icon's ``mimeType`` of any text; a default of nan was left out of
the schema without a word (T44-4).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Literal

import pytest
from listed_components import (
    Registering,
    by_id,
    one,
    refused_and_the_rest_lists,
    text,
)

from nanohubmcp import MCPServer, TextContent
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import client_session

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SURROGATE = "is no character (a file name that is not UTF-8 holds one, as os.listdir reads it): a client is sent U+FFFD"
NOT_AN_ICON = "is not an https: URL or a data: URI, the only icons a client may show"


def pick(name: Literal["r\udce9sultat.txt", "b.txt"] = "b.txt") -> str:  # type: ignore[valid-type]
    """A file, named as os.listdir gives a Latin-1 name."""
    return name


REFUSED: list[tuple[str, Registering, str]] = [
    # T44-1: what a client sends back (a URI, a name, an enum value) and the text it shows
    ("resource uri", lambda s: s.resource("data://a\udc80")(text),
     f"resource 'data://a\\udc80': uri='data://a\\udc80' holds the UTF-16 surrogate '\\udc80', which {SURROGATE} "
     "in its place, and what it sends back then names nothing; write Unicode text, e.g. uri='data://a%80'"),
    ("template uri", lambda s: s.resource("file://r\udce9sultat/{pid}")(by_id),
     "uri='file://r\\udce9sultat/{pid}' holds the UTF-16 surrogate '\\udce9'"),
    ("prompt name", lambda s: s.prompt(name="r\udce9sum\udce9")(text),
     "prompt 'r\\udce9sum\\udce9': name='r\\udce9sum\\udce9' holds the UTF-16 surrogate '\\udce9', which "
     f"{SURROGATE} in its place, and what it sends back then names nothing; write Unicode text, e.g. name='résumé'"),
    ("prompt name pair", lambda s: s.prompt(name="smile\ud83d\ude00")(text), "e.g. name='smile\U0001f600'"),
    ("resource name", lambda s: s.resource("data://x", name="n\udc80")(text), "name='n\\udc80' holds"),
    ("prompt title", lambda s: s.prompt(title="t\udce9")(text),
     f"prompt 'text': title='t\\udce9' holds the UTF-16 surrogate '\\udce9', which {SURROGATE} in its place; "
     "write Unicode text, e.g. title='té'"),
    ("resource description", lambda s: s.resource("data://x", description="d\udc80")(text), "description='d\\udc80'"),
    ("tool meta", lambda s: s.tool(meta={"files": ["r\udce9sultat.txt"]})(one),
     "tool 'one': invalid meta: the text 'r\\udce9sultat.txt' at meta.files[0] holds the UTF-16 surrogate"),
    ("tool meta key", lambda s: s.tool(meta={"r\udce9": 1})(one), "at a key of meta holds the UTF-16 surrogate"),
    ("tool enum", lambda s: s.tool()(pick),
     "tool 'pick': invalid input schema: the text 'r\\udce9sultat.txt' at schema.properties.name.enum[0] holds"),
    # T44-2
    ("mime crlf", lambda s: s.resource("data://x", mime_type="text/plain\r\nX-Evil: 1")(text),
     "resource 'data://x': mime_type='text/plain\\r\\nX-Evil: 1' is not a MIME type; give one as type/subtype, "
     "e.g. mime_type='text/plain' or 'application/json; charset=utf-8', or leave it out"),
    ("mime empty", lambda s: s.resource("data://x", mime_type="")(text), "mime_type='' is not a MIME type"),
    ("mime words", lambda s: s.resource("data://x", mime_type="not a mime")(text), "'not a mime' is not a MIME type"),
    ("mime template", lambda s: s.resource("data://t/{pid}", mime_type="text")(by_id),
     "resource template 'data://t/{pid}': mime_type='text' is not a MIME type"),
    ("lastModified words", lambda s: s.resource("data://x", annotations={"lastModified": "yesterday"})(text),
     "resource 'data://x' annotations.lastModified must be an ISO 8601 text like '2025-01-12T15:00:58Z', "
     "got 'yesterday'"),
    ("lastModified no day", lambda s: s.resource("data://x", annotations={"lastModified": "2025-13-45T00:00:00Z"})(
        text), "annotations.lastModified must be an ISO 8601 text like '2025-01-12T15:00:58Z', got '2025-13-45"),
    ("annotation unknown", lambda s: s.resource("data://x", annotations={"foo": 1})(text),
     "resource 'data://x': unknown annotation 'foo' (allowed: audience, priority, lastModified)"),
    # T44-3
    ("icon javascript", lambda s: s.tool(icons=[{"src": "javascript:alert(1)"}])(one),
     f"tool 'one': icons[0].src='javascript:alert(1)' {NOT_AN_ICON} (MCP 2025-11-25, Icons: javascript:, file:, "
     "http: and the rest are refused); give one, e.g. 'https://example.org/icon.png' or 'data:image/png;base64,"),
    ("icon empty", lambda s: s.tool(icons=[{"src": "https://example.org/a.png"}, {"src": ""}])(one),
     "tool 'one': icons[1].src='' is empty; give an https: URL or a data: URI, e.g. 'https://example.org/icon.png'"),
    ("icon http", lambda s: s.tool(icons=[{"src": "http://example.org/a.png"}])(one), NOT_AN_ICON),
    ("icon file", lambda s: s.tool(icons=[{"src": "file:///etc/passwd"}])(one), NOT_AN_ICON),
    ("icon relative", lambda s: s.tool(icons=[{"src": "icon.png"}])(one), NOT_AN_ICON),
    ("icon no host", lambda s: s.tool(icons=[{"src": "https:///a.png"}])(one), NOT_AN_ICON),
    ("icon space", lambda s: s.tool(icons=[{"src": "https://example.org/my icon.png"}])(one),
     "icons[0].src='https://example.org/my icon.png' holds a space or a control character; percent-escape it"),
    # an icon's mimeType is held to the check of a resource's mime_type (it was any text)
    ("icon mime words", lambda s: s.tool(icons=[{"src": "https://example.org/a.png", "mimeType": "a png"}])(one),
     "tool 'one': icons[0].mimeType='a png' is not a MIME type; give one as type/subtype, e.g. 'image/png' or "
     "'image/svg+xml', or leave it out"),
    ("icon mime empty", lambda s: s.tool(icons=[{"src": "https://example.org/a.png", "mimeType": ""}])(one),
     "icons[0].mimeType='' is not a MIME type"),
    ("icon mime crlf", lambda s: s.tool(icons=[{"src": "https://example.org/a.png"},
                                               {"src": "https://example.org/b.png", "mimeType": "image/png\r\nX: 1"}])(
        one), "icons[1].mimeType='image/png\\r\\nX: 1' is not a MIME type"),
]


@pytest.mark.parametrize(("make", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
async def test_a_value_a_client_cannot_use_is_refused_naming_the_field(
        make: Registering, message: str) -> None:
    await refused_and_the_rest_lists(make, message)


async def test_what_the_refusal_says_to_write_reads_and_gets_in_the_official_client() -> None:
    """T44-1: listed as U+FFFD, then -32002 "Resource not found" / -32602 "Unknown prompt"."""
    server = MCPServer("written")
    server.resource("data://a%80", name="r\u00e9sultat")(text)  # what the refusals above said to write
    server.prompt(name="r\u00e9sum\u00e9", title="smile\U0001f600")(text)
    async with client_session(server) as session:
        listed = (await session.list_resources()).resources
        assert [(str(r.uri), r.name) for r in listed] == [("data://a%80", "r\u00e9sultat")]
        assert (await session.read_resource(listed[0].uri)).contents[0].text == "x"
        prompt = (await session.list_prompts()).prompts[0]
        assert (prompt.name, prompt.title) == ("r\u00e9sum\u00e9", "smile\U0001f600")
        assert (await session.get_prompt(prompt.name)).messages[0].content.text == "x"


async def test_a_mime_type_date_and_icon_clients_take_are_published_as_given() -> None:
    server = MCPServer("kept")
    server.resource("ui://view", mime_type="text/html;profile=mcp-app")(text)
    server.resource("data://x", mime_type='text/plain; charset="utf-8"',
                    annotations={"lastModified": "2025-01-12T15:00:58Z", "priority": 0.5})(text)
    icons = [{"src": "https://example.org/a.png", "mimeType": "image/png"},
             {"src": "data:image/svg+xml;base64,PHN2Zy8+", "sizes": ["any"]},
             {"src": "https://example.org/c.svg", "mimeType": 'image/svg+xml; charset="utf-8"'}]
    server.tool(icons=icons)(one)
    async with client_session(server) as session:
        listed = {str(r.uri): r for r in (await session.list_resources()).resources}
        assert listed["ui://view"].mime_type == "text/html;profile=mcp-app"
        assert listed["data://x"].mime_type == 'text/plain; charset="utf-8"'
        assert listed["data://x"].annotations.last_modified == "2025-01-12T15:00:58Z"
        tool = (await session.list_tools()).tools[0]
        assert [icon.src for icon in tool.icons] == [icon["src"] for icon in icons]
        assert [icon.mime_type for icon in tool.icons] == [icon.get("mimeType") for icon in icons]


def test_a_content_blocks_last_modified_is_an_iso_8601_date_too() -> None:
    """The same Annotations check as a resource's: what a tool returns is held to it."""
    assert TextContent("x", annotations={"lastModified": "2025-01-12T15:00:58Z"}).to_wire()["annotations"] == {
        "lastModified": "2025-01-12T15:00:58Z"}
    with pytest.raises(ValueError, match=r"annotations\.lastModified must be an ISO 8601 text"):
        TextContent("x", annotations={"lastModified": "yesterday"})


@pytest.fixture
def no_int_digit_limit() -> Iterator[None]:
    """As ``PYTHONINTMAXSTRDIGITS=0``: Python writes an int of any length as text."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


LONG_INTS: list[tuple[str, Registering, str]] = [
    ("meta", lambda s: s.tool(meta={"k": 10**5000})(one), "tool 'one': invalid meta: an int of over 4,300 digits at "
     "meta.k has no JSON form; write a number of at most 4,300 digits, or leave it out"),
    ("schema", lambda s: s.tool(input_schema={"type": "object", "properties": {"n": {"maximum": 10**4300}}})(one),
     "an int of over 4,300 digits at schema.properties.n.maximum"),
    ("prompt meta", lambda s: s.prompt(meta={"k": [-(10**4300)]})(text), "at meta.k[0] has no JSON form"),
]


@pytest.mark.usefixtures("no_int_digit_limit")
@pytest.mark.parametrize(("make", "message"), [c[1:] for c in LONG_INTS], ids=[c[0] for c in LONG_INTS])
async def test_an_int_no_client_reads_is_refused_whatever_pythons_own_limit(
        make: Registering, message: str) -> None:
    """T44-11: registered, then tools/list failed for the official client ("number out of range")."""
    await refused_and_the_rest_lists(make, message)


@pytest.mark.usefixtures("no_int_digit_limit")
async def test_an_int_of_4300_digits_lists_in_the_official_client() -> None:
    server = MCPServer("long")
    server.tool(meta={"k": -(10**4300 - 1)})(one)
    async with client_session(server) as session:
        assert (await session.list_tools()).tools[0].meta == {"k": -(10**4300 - 1)}


def test_a_refusal_is_unicode_text_a_log_file_can_hold() -> None:
    """The surrogate is named by its escape, in the label (the URI) too."""
    server = MCPServer("logged")
    with pytest.raises(RegistrationError) as caught:
        server.resource("data://r\udce9sultat", name="r")(text)
    assert str(caught.value).encode("utf-8").startswith(b"resource 'data://r\\udce9sultat': uri=")
