"""An ``MCP-Protocol-Version`` header the server does not speak is named back as its client wrote it: a date in
Arabic-Indic digits sent as UTF-8 was read one character per byte (as HTTP reads header bytes) and quoted back as
other characters, ``"Ù¢Ù Ù¢Ù¦-07-28"`` (trial53 F8); it now reads ``"٢٠٢٦-07-28"``, with the ASCII spelling to send,
as the command line's refusals of such digits say."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from support import serve

from nanohubmcp import MCPServer


def post_ping(url: str, version: bytes) -> tuple[int, dict]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("POST", parts.path)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        for name, value in (("Content-Type", b"application/json"), ("Accept", b"application/json, text/event-stream"),
                            ("MCP-Protocol-Version", version), ("Content-Length", str(len(body)).encode())):
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_version_in_other_digits_is_named_as_sent_and_told_its_ascii_spelling() -> None:
    server = MCPServer("versions")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    with serve(server) as url:
        status, reply = post_ping(url, "٢٠٢٦-07-28".encode())
        assert status == 400
        message = reply["error"]["message"]
        assert message == 'Unsupported MCP-Protocol-Version: "٢٠٢٦-07-28"; write it in ASCII digits: 2026-07-28'
        assert reply["error"]["data"]["requested"] == "٢٠٢٦-07-28"

        status, reply = post_ping(url, b"1999-01-01")  # (ASCII: named as it was, no spelling to add)
        assert status == 400
        assert reply["error"]["message"] == 'Unsupported MCP-Protocol-Version: "1999-01-01"'

        status, reply = post_ping(url, b"\xe9t\xe9")  # (not UTF-8: named as read, one character per byte)
        assert status == 400
        assert reply["error"]["message"] == 'Unsupported MCP-Protocol-Version: "été"'

        status, reply = post_ping(url, b"2025-11-25")  # the server goes on
        assert status == 200, reply
