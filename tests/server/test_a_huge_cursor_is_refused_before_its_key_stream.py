"""A cursor longer than the longest the server issues is refused (-32602) before it is decoded and its key stream
made (with a stream of one HMAC per 32 bytes, a body-sized cursor of megabytes held the event loop for a third of a
second), even one sealed with the server's key; the longest the server issues still opens."""

from __future__ import annotations

import pytest

from nanohubmcp.errors import InvalidParams
from nanohubmcp.server.handlers.cursors import MAX_CURSOR_CHARS, CursorSeal
from nanohubmcp.server.registry.listed_text import MAX_KEY_CHARS


def test_a_cursor_over_the_bound_is_refused_and_one_under_it_still_opens() -> None:
    seal = CursorSeal(b"k" * 32)
    longest = "9" * 20 + "/" + "\U0001f600" * MAX_KEY_CHARS  # the longest position the server seals
    assert seal.open("tools/list", seal.seal("tools/list", longest)) == longest
    over = seal.seal("tools/list", "y" * 40_000)  # a valid seal, but longer than any cursor the server issues
    assert len(over) > MAX_CURSOR_CHARS
    with pytest.raises(InvalidParams, match="list again without a cursor"):
        seal.open("tools/list", over)
