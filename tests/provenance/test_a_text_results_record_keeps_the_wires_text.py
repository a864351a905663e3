"""A record keeps the text of a result of one text block (a tool answering a number or a string, or
failing) exactly as the wire wrote it without ``_meta``, and its digest is that text's SHA-256, whatever
the text holds (quotes, backslashes, control characters, text that is not ASCII, a long text),
with ``isError`` either way; a result of another shape (more blocks, ``structuredContent``, keys in
another order) the same (docs/how-to/provenance.md). Calls over Streamable HTTP in a session, each
reply's bytes compared with its record."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpx2 as httpx
from record_calls import REQUEST_IDS, RecordCaller
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.provenance import result_text

TEXTS = ["3.0", 'say "hi"\\ \n\t\r\x01\x1f\x7f end', "", "Grüße, 電子 ✓", "x" * 70_000]


def echo(text: str) -> str:
    """Answer the text given."""
    return text


def fail(text: str) -> str:
    """Fail with the text given."""
    raise ValueError(text)


def both(text: str) -> dict[str, Any]:
    """Answer the text as structured content."""
    return {"text": text}


def reply_of(caller: RecordCaller, session: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": next(REQUEST_IDS), "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}
    body = jsonenc.dumpb(message)  # (a lone surrogate is sent escaped, as the wire writes it)
    headers = {**caller._headers(session), "Accept": "application/json", "Content-Type": "application/json"}
    reply = httpx.post(caller.base + "mcp", headers=headers, timeout=10, content=body)
    assert reply.status_code == 200, reply.text
    result: dict[str, Any] = json.loads(reply.content)["result"]
    return result


def test_a_records_kept_text_is_the_wires_for_every_text(tmp_path: Path) -> None:
    server = MCPServer("texts", state_dir=str(tmp_path / "state"))
    for tool in (echo, fail, both):
        server.tool()(tool)
    with serve(server) as url:
        caller = RecordCaller(url)
        session = caller.open()
        answers = [(name, text, reply_of(caller, session, name, {"text": text}))
                   for name in ("echo", "fail", "both") for text in TEXTS]
        for name, text, result in answers:
            uri = result.pop("_meta")["io.nanohub/provenance"]
            record = server.core.provenance.find(uri.rsplit("/", 1)[1])
            assert record is not None
            wire = jsonenc.dumpb(result)
            assert record["result_digest"] == "sha256:" + hashlib.sha256(wire).hexdigest(), (name, text)
            if len(wire) <= result_text.MAX_KEPT_RESULT_BYTES:
                assert record["result_text"].encode() == wire, (name, text)
            assert record["status"] == ("failed" if name == "fail" else "completed")
            assert record["resource_links"] == []


def test_only_the_one_text_block_shape_is_written_without_the_encoder() -> None:
    plain = {"content": [{"type": "text", "text": 'a "b"\n'}], "isError": False}
    assert result_text.one_text_block(plain) == result_text.result_text(plain)
    assert result_text.one_text_block({**plain, "isError": True}) == result_text.result_text({**plain, "isError": True})
    others = [
        {"isError": False, "content": plain["content"]},  # another key order
        {**plain, "structuredContent": {"a": 1}},
        {"content": [{"text": "a", "type": "text"}], "isError": False},
        {"content": [plain["content"][0], plain["content"][0]], "isError": False},
        {"content": ({"type": "text", "text": "a"},), "isError": False},
        {"content": [{"type": "text", "text": "é"}], "isError": False},  # (not ASCII: the encoder's)
        {"content": [{"type": "text", "text": "\ud800"}], "isError": False},  # (a lone surrogate: escaped by the wire)
        {"content": [{"type": "text", "text": 1}], "isError": False},
        {"content": [{"type": "resource_link", "text": "a"}], "isError": False},
        {"content": [{"type": "text", "text": "a"}], "isError": 0},
        {"content": [{"type": "text", "text": "a"}], "isError": None},
        {"content": [{"type": "text", "text": "a"}]},
        {"content": "ab", "isError": False},
        {"content": [], "isError": False},
    ]
    for result in others:
        assert result_text.one_text_block(result) is None, result
