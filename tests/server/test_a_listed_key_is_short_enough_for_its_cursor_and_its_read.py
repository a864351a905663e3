"""A resource URI, a resource template and a prompt name over 8192 characters (``MAX_KEY_CHARS``, the longest URI
``resources/read`` takes) are refused at registration with a ``ValueError`` naming the limit. Before (review r34
F1), a resource of a 50,000-character URI registered; it could never be read, and the page ending at it gave a
``nextCursor`` of 66,706 characters that the server then refused as "not issued": the resources after it were never
listed. A key at the limit, in 4-byte characters (the longest cursor it can give), pages on: a real server, the
official ``mcp`` client, one entry a page."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.server.handlers.cursors import MAX_CURSOR_CHARS
from nanohubmcp.server.registry.listed_text import MAX_KEY_CHARS

pytestmark = pytest.mark.timeout(120)

LONGEST = "data://" + "\U0001f600" * (MAX_KEY_CHARS - 7)  # 8192 characters, 4 UTF-8 bytes each but the scheme's


def text() -> str:
    return "v"


def echo(n: str) -> str:
    return n


def longest_listed() -> MCPServer:
    server = MCPServer("long-keys", list_page_size=1)
    for uri in ("data://a", LONGEST, "data://c"):
        server.add_resource(text, uri, name=f"r{len(uri)}")
    for name in ("a", "\U0001f600" * MAX_KEY_CHARS, "c"):
        server.prompt(name=name)(text)
    return server


@pytest.mark.parametrize("kind", ["resource", "template", "prompt"])
def test_a_key_over_the_limit_is_refused_at_registration_naming_the_limit(kind: str) -> None:
    server = MCPServer("too-long", list_page_size=1)
    server.add_resource(text, "data://a")
    over = "x" * (MAX_KEY_CHARS + 1)
    register = {"resource": lambda: server.add_resource(text, "data://b/" + over[9:]),
                "template": lambda: server.add_resource(echo, "data://b/{n}/" + over[13:]),
                "prompt": lambda: server.prompt(name=over)(text)}[kind]
    with pytest.raises(ValueError, match=f"is {MAX_KEY_CHARS + 1} characters long") as refused:
        register()
    assert isinstance(refused.value, RegistrationError)
    message = str(refused.value)
    assert f"at most {MAX_KEY_CHARS} characters" in message
    assert len(message) < 400, "the message repeats the key"


def test_a_key_at_the_limit_pages_on_and_reads() -> None:
    async def main() -> tuple[list[str], list[str], int, str]:
        with anyio.fail_after(60):
            async with mcp_client(url + "mcp") as client:
                send = client._dispatcher.send_raw_request
                cursors: list[int] = []

                async def listing(method: str, key: str, field: str) -> list[str]:
                    listed: list[str] = []
                    cursor: str | None = None
                    while True:
                        page: Any = await send(method, {} if cursor is None else {"cursor": cursor})
                        listed += [entry[field][:9] for entry in page[key]]
                        cursor = page.get("nextCursor")
                        if cursor is None:
                            return listed
                        cursors.append(len(cursor))

                resources = await listing("resources/list", "resources", "uri")
                prompts = await listing("prompts/list", "prompts", "name")
                read = await client.read_resource(LONGEST)
                return resources, prompts, max(cursors), read.contents[0].text  # type: ignore[union-attr]

    with serve(longest_listed()) as url:
        resources, prompts, longest_cursor, read = anyio.run(main)
    assert resources == ["data://a", LONGEST[:9], "data://c"]
    assert prompts == ["a", "\U0001f600" * 9, "c"]
    assert longest_cursor <= MAX_CURSOR_CHARS
    assert read == "v"
