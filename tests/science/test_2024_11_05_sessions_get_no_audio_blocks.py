"""A session that negotiated MCP 2024-11-05 (audio blocks arrived in 2025-03-26) gets an embedded resource
holding the same data as a blob in each ``audio`` block's place, labelled ``nanohubmcp://audio/<n>`` with the
audio's MIME type, on every path that answers content: ``tools/call``, a background job's result polled with
``get_job_result``, ``prompts/get``. From 2025-03-26 on the audio block is sent as it is.

Raw JSON-RPC over Streamable HTTP, each version negotiated with ``initialize``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from support import serve, wait_until
from test_old_protocol_sessions_get_no_resource_link_blocks import Session, kinds

from nanohubmcp import AudioContent, MCPServer, PromptResult, ToolResult

pytestmark = pytest.mark.timeout(120)

SOUND = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)
DATA = base64.b64encode(SOUND).decode()


def build() -> MCPServer:
    server = MCPServer("old-audio", provenance=False)

    @server.tool()
    def sound() -> ToolResult:
        """A caption and a sound."""
        return ToolResult(content=["listen", AudioContent(DATA, mime_type="audio/wav")])

    @server.async_tool()
    def sound_job() -> ToolResult:
        """The sound, from a job."""
        return sound()

    @server.prompt()
    def with_sound() -> PromptResult:
        """A prompt holding a sound."""
        return PromptResult(["listen to this", AudioContent(DATA, mime_type="audio/wav")])

    return server


def polled(session: Session, name: str) -> Any:
    started = session.call("tools/call", {"name": name, "arguments": {}})
    job_id = json.loads(started["content"][0]["text"])["job_id"]
    return wait_until(lambda: (lambda got: None if '"running"' in got["content"][0]["text"] else got)(
        session.call("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})), "the job")


def test_a_2024_11_05_session_gets_the_audio_as_an_embedded_blob() -> None:
    with serve(build()) as url:
        session = Session(url, "2024-11-05")
        called = session.call("tools/call", {"name": "sound", "arguments": {}})
        assert kinds(called["content"]) == ["text", "resource"]
        assert called["content"][1]["resource"] == {"uri": "nanohubmcp://audio/1", "mimeType": "audio/wav",
                                                    "blob": DATA}

        ended = polled(session, "sound_job")
        assert "audio" not in kinds(ended["content"]), ended
        blobs = [block["resource"] for block in ended["content"] if block["type"] == "resource"]
        assert [(blob["mimeType"], blob["blob"]) for blob in blobs] == [("audio/wav", DATA)]

        prompt = session.call("prompts/get", {"name": "with_sound"})
        assert [message["content"]["type"] for message in prompt["messages"]] == ["text", "resource"]
        assert prompt["messages"][1]["content"]["resource"]["blob"] == DATA


def test_from_2025_03_26_on_the_audio_is_sent_as_it_is() -> None:
    with serve(build()) as url:
        session = Session(url, "2025-03-26")
        called = session.call("tools/call", {"name": "sound", "arguments": {}})
        assert kinds(called["content"]) == ["text", "audio"]
        assert called["content"][1]["data"] == DATA
        assert "audio" in kinds(polled(session, "sound_job")["content"])
        prompt = session.call("prompts/get", {"name": "with_sound"})
        assert prompt["messages"][1]["content"]["type"] == "audio"
