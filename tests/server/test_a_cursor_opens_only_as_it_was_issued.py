"""A list cursor opens only spelled as the server wrote it: the base64 decoder takes ``+`` and ``/`` for ``-`` and
``_``, skips characters outside its alphabet (four of them keep the padding right) and ignores the last character's
unused low bits, so before (review r34 N2) such a re-spelling of an issued cursor, an altered cursor, answered the
next page. Each is now -32602 "list again without a cursor", as the module's docstring says of an altered one; the
cursor as issued still opens (the real ``CursorSeal`` and a real in-process server)."""

from __future__ import annotations

import base64

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidParams
from nanohubmcp.server.handlers.cursors import CursorSeal
from nanohubmcp.testing import RpcError, in_memory

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def issued_with_both_url_safe_characters(seal: CursorSeal) -> str:
    """A cursor holding ``-`` and ``_`` whose last character has unused low bits (its length is not a multiple of
    4)."""
    for n in range(10_000):
        cursor = seal.seal("tools/list", f"{n}/tool_{n}")
        if "-" in cursor and "_" in cursor and len(cursor) % 4:
            return cursor
    raise AssertionError("no cursor with both characters")


def aliases(cursor: str) -> list[str]:
    """Other spellings the decoder reads as ``cursor``'s bytes."""
    last = _ALPHABET.index(cursor[-1])
    unused = 4 if len(cursor) % 4 == 2 else 2  # the low bits of the last character that carry no byte
    other_last = [_ALPHABET[last ^ bits] for bits in range(1, 1 << unused)]
    spelled = [cursor.replace("-", "+"), cursor.replace("_", "/"), cursor[:5] + "    " + cursor[5:],
               cursor[:5] + "!!!!" + cursor[5:]]
    respelled = [cursor[:-1] + c for c in other_last]
    for alias in spelled + respelled:
        padded = alias.encode() + b"=" * (-len(alias) % 4)
        assert base64.urlsafe_b64decode(padded) == base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)), alias
    return spelled + respelled


def test_a_spelling_the_encoder_does_not_write_is_refused() -> None:
    seal = CursorSeal(b"k" * 32)
    cursor = issued_with_both_url_safe_characters(seal)
    assert seal.open("tools/list", cursor).endswith("/tool_" + seal.open("tools/list", cursor).partition("/")[0])
    for alias in aliases(cursor):
        with pytest.raises(InvalidParams, match="list again without a cursor"):
            seal.open("tools/list", alias)


def test_a_server_refuses_a_re_spelled_cursor_32602_and_pages_on_the_issued_one() -> None:
    server = MCPServer("aliases", list_page_size=1)
    for n in range(40):
        server.tool(name=f"tool_{n}", description="t")(lambda: "t")
    with in_memory(server) as client:
        cursor = client.request("tools/list", {})["nextCursor"]
        while not ("-" in cursor or "_" in cursor):
            cursor = client.request("tools/list", {"cursor": cursor})["nextCursor"]
        page = client.request("tools/list", {"cursor": cursor})
        assert len(page["tools"]) == 1
        respelled = cursor.replace("-", "+").replace("_", "/")
        with pytest.raises(RpcError, match="list again without a cursor") as refused:
            client.request("tools/list", {"cursor": respelled})
        assert refused.value.code == -32602, refused.value
