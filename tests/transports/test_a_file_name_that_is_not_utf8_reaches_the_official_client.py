"""A tool that returns a file name that is not UTF-8 (``os.listdir`` reads ``b"r\\xe9sultat.txt"`` as
``"r\\udce9sultat.txt"``, a lone surrogate) answers the official MCP client with U+FFFD in its place, over
Streamable HTTP, stdio and in a kept result read back: the server wrote the escape ``\\udce9``, which the
client's parser (pydantic) refuses, so the call failed with "Invalid JSON" (trial33 W20). What the client
sent and the protocol echoes (a request id, a progress token) still comes back as sent."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from client_logs import ask_for_logs
from support import mcp_client, serve, stdio_call

from nanohubmcp import Context, MCPServer

NAME = b"r\xe9sultat.txt"  # Latin-1, as on many shared hubs
SHOWN = "r\ufffdsultat.txt"


def files_server(folder: Path) -> MCPServer:
    server = MCPServer("files", max_inline_bytes=1000)

    @server.tool()
    def list_files(ctx: Context) -> list:
        """The folder's file names."""
        names = sorted(os.listdir(folder))
        ctx.log("info", f"listed {names[0]}")
        ctx.report_progress(1, 1, message=names[0])
        return names

    @server.tool()
    def long_listing() -> str:
        """The folder's file names, many times over."""
        return "\n".join(os.listdir(folder)) * 200  # kept as a resource: larger than max_inline_bytes

    @server.tool()
    def echo(text: str, ctx: Context) -> str:
        """``text`` back."""
        ctx.report_progress(1, 1, message=text)
        return text

    return server


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "files").mkdir()
    with open(os.fsencode(tmp_path / "files") + b"/" + NAME, "w") as file:
        file.write("x")
    assert os.listdir(tmp_path / "files") == ["r\udce9sultat.txt"]
    return tmp_path / "files"


def test_the_official_client_over_http_reads_the_name_its_log_and_progress(
        folder: Path, caplog: pytest.LogCaptureFixture) -> None:
    logs: list[Any] = []
    progress: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async def main() -> tuple[Any, Any, Any]:
        with anyio.fail_after(30):  # (before: the client never read the answer, and waited)
            async with mcp_client(url + "mcp", logging_callback=on_log) as client:
                await ask_for_logs(client)
                listed = await client.call_tool("list_files", {}, progress_callback=on_progress)
                kept = await client.call_tool("long_listing", {})
                link = next(block for block in kept.content if block.type == "resource_link")
                read = await client.read_resource(link.uri)
                return listed, kept, read

    with caplog.at_level(logging.WARNING, "nanohubmcp"), serve(files_server(folder)) as url:
        listed, kept, read = anyio.run(main)
        rest = httpx.post(url + "tools/list_files", json={}, timeout=10)
    assert not listed.is_error, listed
    assert json.loads(listed.content[0].text) == [SHOWN]
    assert listed.structured_content == {"result": [SHOWN]}
    assert logs == [f"listed {SHOWN}"]
    assert progress == [SHOWN]
    assert not kept.is_error, kept
    assert read.contents[0].text == "\n".join([SHOWN]) * 200
    assert rest.json()["result"] == [SHOWN]
    warned = [r for r in caplog.records if "U+FFFD" in r.getMessage()]
    assert len(warned) <= 1  # once per process (an earlier test in this process may have said it)


def test_the_official_client_over_stdio_reads_the_name(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("from nanohubmcp import MCPServer\n"
                   "server = MCPServer('files')\n"
                   "@server.tool()\n"
                   "def list_files() -> list:\n"
                   "    \"The file names.\"\n"
                   "    return [b'r\\xe9sultat.txt'.decode('utf-8', 'surrogateescape')]\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    result, errors = anyio.run(lambda: stdio_call(["-m", "nanohubmcp", "run", str(app), "--transport", "stdio"],
                                                  "list_files", {}, cwd=tmp_path, env=env))
    assert not result.is_error, (result, errors)
    assert result.structured_content == {"result": [SHOWN]}
    assert "U+FFFD" in errors


def test_what_the_client_sent_and_the_protocol_echoes_comes_back_as_sent(folder: Path) -> None:
    with serve(files_server(folder)) as url:
        answer = httpx.post(url + "mcp", content='{"jsonrpc":"2.0","id":"\\udc00","method":"tools/call","params":'
                            '{"name":"echo","arguments":{"text":"a\\ud800"},"_meta":{"progressToken":"\\ud801"}}}',
                            headers={"Content-Type": "application/json", "Accept": "application/json, "
                                     "text/event-stream"}, timeout=10)
    assert answer.status_code == 200, answer.text
    data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
    events = [json.loads(text) for text in data if text.strip()]
    reply = events[-1]
    assert reply["id"] == "\udc00"  # the client matches its answer by it
    assert (events[0]["params"]["progressToken"], events[0]["params"]["message"]) == ("\ud801", "a\ufffd")
    assert reply["result"]["content"][0]["text"] == "a\ufffd"  # what the tool returned: readable by every client

