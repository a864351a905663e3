"""What a tool wrote reaches every client as Unicode (trial35 Y10, Y11).

A tool's error text holding a lone surrogate (``ValueError("bad file r\\udce9s.txt")``, a name
``os.listdir`` read) was answered over REST as ``{"error": "bad file r\\udce9s.txt"}``, the escape
strict parsers refuse, while ``/mcp`` sent U+FFFD: the REST body was taken for a JSON-RPC message, whose
``error`` (and ``id``) echo the client. A REST answer is the tool's throughout. And a surrogate *pair*
(``"\\ud83d\\ude00"``, one character split in two) was sent as two U+FFFD instead of the character.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
from support import mcp_client, serve

from nanohubmcp import MCPServer

SHOWN = "bad file r\ufffds.txt"
SPLIT = "smile \ud83d\ude00, lone \ud800 and \ude00"
JOINED = "smile \N{GRINNING FACE}, lone \ufffd and \ufffd"


def texts_server() -> MCPServer:
    server = MCPServer("texts")

    @server.tool()
    def boom() -> str:
        """Fails, naming a file that is not UTF-8."""
        raise ValueError("bad file r\udce9s.txt")

    @server.tool()
    def record() -> dict:
        """A record whose members are named as a JSON-RPC message's are."""
        return {"id": "r\udce9s.txt", "error": "r\udce9s.txt", "size": 3}

    @server.tool()
    def split() -> list:
        """Text holding a surrogate pair and lone surrogates."""
        return [SPLIT]

    return server


async def over_mcp(url: str, name: str) -> Any:
    with anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            return await client.call_tool(name, {})


def test_a_tools_error_and_its_record_over_rest_carry_u_fffd_as_over_mcp() -> None:
    with serve(texts_server()) as url:
        failed = anyio.run(over_mcp, url, "boom")
        rest = httpx.post(url + "tools/boom", json={}, timeout=10)
        rest_record = httpx.post(url + "tools/record", json={}, timeout=10)
    assert failed.is_error
    assert SHOWN in failed.content[0].text
    assert rest.status_code == 500, rest.text
    assert "\\udce9" not in rest.text  # (strict parsers, pydantic and serde, refuse the escape)
    assert SHOWN in rest.json()["error"]
    assert rest_record.status_code == 200, rest_record.text
    assert rest_record.json() == {"id": "r\ufffds.txt", "error": "r\ufffds.txt", "size": 3}


def test_a_surrogate_pair_is_sent_as_its_character_on_mcp_and_rest() -> None:
    with serve(texts_server()) as url:
        result = anyio.run(over_mcp, url, "split")
        rest = httpx.post(url + "tools/split", json={}, timeout=10)
    assert not result.is_error, result
    assert result.structured_content == {"result": [JOINED]}
    assert json.loads(result.content[0].text) == [JOINED]
    assert rest.json() == {"result": [JOINED]}
    assert "\N{GRINNING FACE}".encode() in rest.content  # the character itself, in UTF-8
