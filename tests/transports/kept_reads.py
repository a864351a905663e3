"""What the tests of a kept result read back a piece at a time share: the texts kept, how they are kept,
the ``resources/read`` asked, and the answer's bytes when the text is read whole (the in-memory client's
answer, written by the one encoder)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.testing import in_memory

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
ARRAY = "[" + ",".join(repr(i / 7) for i in range(200_000)) + "]"  # 3.8 MB, as an array's JSON is kept
ODD = ('a "quoted" \\ back\tslash\n, é, 😀, \x01\x1f ' * 20_000) + "€"  # every kind of escape, 2- to 4-byte UTF-8
PIECE = 16 * 1024
SURROGATES = "\ud83d\ude00 a pair, é, a high \ud83d, \ud83d\ud83d\ude00, a low \ude00, \ude00\ud83d, \ud83d"
"""A pair's halves (each three bytes as the store keeps it), and lone high and low halves, the last at the end."""

TEXTS = [
    (ARRAY, "application/json", [PIECE]),
    (ODD, "text/plain", [PIECE]),
    (ODD[:3000], "text/plain", [1, 2, 3, 5]),  # pieces that cut 2-, 3- and 4-byte characters
    ("", "text/plain", [PIECE]),
    ("a lone \ud800 surrogate, é", "text/plain", [PIECE]),  # no UTF-8 form: sent as U+FFFD
    # trial38 T5: halves of a pair (joined as UTF-16 code units are), cut between pieces too, and lone ones
    (SURROGATES, "text/plain", [1, 2, 3, 4, 5, 7, 11, PIECE]),
    (SURROGATES * 2_000, "text/plain", [PIECE]),
]
"""``(text, mime type, read_piece_bytes values)`` to read back."""
TEXT_IDS = ["array", "escapes", "cut-characters", "empty", "lone-surrogate", "surrogates", "surrogates-long"]


def as_sent(text: str) -> str:
    """``text`` as a client reads it: a surrogate pair as its character, a lone surrogate as U+FFFD."""
    return text.replace("\ud83d\ude00", "\U0001f600").translate({0xD800: 0xFFFD, 0xD83D: 0xFFFD, 0xDE00: 0xFFFD})


def keep(server: MCPServer, text: str, mime_type: str = "application/json", owner: str | None = None) -> str:
    """Keep ``text`` in ``server``'s store (a file in its state dir), readable by ``owner`` (None: anyone)."""

    def parts() -> Iterator[str]:
        for start in range(0, len(text), 100_000):
            yield text[start : start + 100_000]

    uri, _ = server.core.result_store.keep_parts(parts, mime_type, ".json", owner)
    return uri


def read_message(uri: str, version: str, request_id: Any = 7) -> dict[str, Any]:
    params: dict[str, Any] = {"uri": uri}
    if version == MODERN:
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                           "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": params}


def expected(server: MCPServer, message: dict[str, Any], version: str) -> bytes:
    """What the answer's bytes must be: the in-memory client's answer (the text read whole), encoded."""
    with in_memory(server, version=version, session=False, timeout=60) as client:
        return jsonenc.dumpb(client.send(message))
