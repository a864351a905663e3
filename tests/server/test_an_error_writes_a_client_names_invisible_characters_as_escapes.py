"""An error repeating a name the client sent writes the characters that print as nothing or move what follows as
escapes (trial77 NIT): ``Unknown tool: \\u202edda`` for a name starting with a right-to-left override (shown raw,
"Unknown tool: " then "add" reversed on screen: another name than was sent), a NUL or a line break in an unknown
resource's URI. Printable text, accented letters included, is repeated as sent."""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import RpcError, in_memory


def build() -> MCPServer:
    server = MCPServer("escapes", provenance=False)

    @server.tool()
    def add(a: int, b: int) -> int:
        """a + b."""
        return a + b

    return server


def refusal(method: str, params: dict[str, object]) -> str:
    with in_memory(build()) as client, pytest.raises(RpcError) as refused:
        client.request(method, params)
    return str(refused.value)


def test_an_unknown_tools_bidirectional_override_is_escaped() -> None:
    message = refusal("tools/call", {"name": "\u202edda", "arguments": {}})
    assert "\u202e" not in message
    assert "Unknown tool: \\u202edda" in message


def test_an_unknown_uris_nul_and_line_break_are_escaped() -> None:
    message = refusal("resources/read", {"uri": "x://a\x00b\nc"})
    assert "\x00" not in message
    assert "\n" not in message
    assert "x://a\\u0000b\\u000ac" in message


def test_printable_names_are_repeated_as_sent() -> None:
    assert "Unknown tool: grüße" in refusal("tools/call", {"name": "grüße", "arguments": {}})
