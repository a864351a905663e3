"""trial79 F7: prompt names and resource URIs took ESC, a bidirectional override, a newline and spaces, and
``prompts/list`` handed them raw to the client (a slash command with a terminal escape inside), where tool names
refuse them. A prompt name, a resource URI and a URI template holding a character that prints as nothing, moves what
follows or is blank are refused at registration, the refusal echoing it escaped; letters of any script stay. And
the refusal of a 20,000-character tool name repeated it whole, twice (20,232 characters): it is cut as the
prompt's is."""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import client_session

pytestmark = pytest.mark.anyio

REFUSED = ["ctl\x07bell", "esc\x1b[31mred", "bidi\u202eevil", "zw\u200bspace", "bom\ufeff", "nl\nline", "tab\tx",
           " ", "two words", "nbsp\xa0x", "c1\x9bx"]


def text() -> str:
    """A text."""
    return "v"


def item(n: str) -> str:
    """An item."""
    return n


def written(name: str) -> str:
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)


@pytest.mark.parametrize("name", REFUSED)
def test_a_prompt_name_a_terminal_would_obey_or_blank_is_refused_escaped(name: str) -> None:
    with pytest.raises(RegistrationError) as refused:
        MCPServer("p").prompt(name=name)(text)
    message = str(refused.value)
    assert message.startswith(f"prompt '{written(name)}': names hold no control, invisible or whitespace "
                              "character, as tool names (SEP-986); choose another, e.g. name='"), message
    assert message.isprintable(), message


def test_a_functions_own_name_is_told_to_be_published_under_another() -> None:
    def made() -> str:
        return "v"

    made.__name__ = "made by\nhand"  # (a callable named in code: a def's own name is an identifier)
    with pytest.raises(RegistrationError, match=r"under another name, e\.g\. name='made_by_hand'"):
        MCPServer("p").prompt()(made)


@pytest.mark.parametrize("uri", [f"data://{name}" for name in REFUSED])
def test_a_uri_a_terminal_would_obey_or_blank_is_refused_escaped(uri: str) -> None:
    with pytest.raises(RegistrationError) as refused:
        MCPServer("r").resource(uri)(text)
    message = str(refused.value)
    assert message.startswith(f"resource '{written(uri)}': URIs hold no control, invisible or whitespace character "
                              "(RFC 3986); percent-encode it, e.g. uri='data://"), message
    assert message.isprintable(), message
    with pytest.raises(RegistrationError, match=r"^resource template '.*': URIs hold no control"):
        MCPServer("r").resource(uri + "/{n}")(item)


async def test_letters_of_any_script_and_the_written_escapes_are_listed_as_given() -> None:
    server = MCPServer("kept")
    server.prompt(name="résumé")(text)
    server.prompt(name="смайл\U0001f600")(text)
    server.resource("data://café/a%20b")(text)
    server.resource("data://ctl%07")(text)  # what the refusal said to write
    server.resource("data://t/{n}")(item)
    async with client_session(server) as session:
        assert [p.name for p in (await session.list_prompts()).prompts] == ["résumé", "смайл\U0001f600"]
        listed = sorted(str(r.uri) for r in (await session.list_resources()).resources)
        assert listed == ["data://café/a%20b", "data://ctl%07"]


def test_a_long_tool_names_refusal_is_cut() -> None:
    with pytest.raises(RegistrationError) as refused:
        MCPServer("t").tool(name="B" * 20000)(text)
    message = str(refused.value)
    assert len(message) < 600, len(message)
    assert message.startswith("tool '" + "B" * 299 + "…': names are 1-128 ASCII letters"), message[:400]
