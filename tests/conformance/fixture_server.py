"""The server the official MCP conformance suite (``@modelcontextprotocol/conformance`` 0.1.16) judges.

It exposes exactly the tools, resources, template, prompts and completion the suite's 32 server
scenarios call, written with nanohubmcp's public API the
way a user would: decorators, return values, ``Context``. The strings the suite looks for are test
data, not behaviour of the library.

Run: ``python tests/conformance/fixture_server.py --port 3001`` (``--host`` defaults to
127.0.0.1, the only kind of host ``dns-rebinding-protection`` can pass on); the Streamable HTTP
endpoint is then ``http://127.0.0.1:3001/mcp``. ``scripts/conformance`` starts it and runs the suite.

Sync and ``async def`` functions are mixed on purpose so both ways of running a function (worker
thread, event loop) are judged: logging and elicitation run on threads, progress and sampling on
the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import struct
import time
import wave
import zlib
from typing import Any

from nanohubmcp import Audio, Context, EmbeddedResource, Image, MCPServer, Message, ToolError

PROMPT_ARG_SUGGESTIONS = ("testValue1", "testValue2", "test-default", "other")


def tiny_png() -> bytes:
    """A valid 1x1 opaque red PNG (67 bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte 0, then one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def tiny_wav() -> bytes:
    """A valid WAV file: 10 ms of silence, mono, 16-bit, 8 kHz."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 80)
    return buffer.getvalue()


def describe_answer(answer: dict[str, Any]) -> str:
    """``action=..., content=...`` text for an elicitation result ``{action, content?}``."""
    return f"action={answer.get('action')}, content={json.dumps(answer.get('content'))}"


JSON_SCHEMA_2020_12_INPUT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
    },
    "additionalProperties": False,
}


def build_server() -> MCPServer:
    """Return the fixture server with every component the 0.1.16 server scenarios use."""
    server = MCPServer("nanohubmcp-conformance-fixture", version="1.0.0")
    png = tiny_png()

    # ---------------------------------------------------------------- tools: content kinds
    @server.tool()
    def test_simple_text() -> str:
        """Return one text block (the suite calls this with no arguments member at all)."""
        return "This is a simple text response for testing."

    @server.tool()
    def test_image_content() -> Image:
        """Return a 1x1 PNG image."""
        return Image(data=png)

    @server.tool()
    def test_audio_content() -> Audio:
        """Return a short WAV clip."""
        return Audio(data=tiny_wav())

    @server.tool()
    def test_embedded_resource() -> EmbeddedResource:
        """Return a text resource embedded in the result."""
        return EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.",
                                mime_type="text/plain")

    @server.tool()
    def test_multiple_content_types() -> list[Any]:
        """Return text, an image and an embedded JSON resource in one result."""
        return [
            "Multiple content types test:",
            Image(data=png),
            EmbeddedResource("test://mixed-content-resource", text=json.dumps({"test": "data", "value": 123}),
                             mime_type="application/json"),
        ]

    @server.tool()
    def test_error_handling() -> str:
        """Always fail, so the client sees a tool result with isError true."""
        raise ToolError("This tool intentionally returns an error for testing")

    # ---------------------------------------------------------------- tools: Context
    @server.tool()
    def test_tool_with_logging(ctx: Context) -> str:
        """Send three info log messages about 50 ms apart, then answer."""
        ctx.info("Tool execution started")
        time.sleep(0.05)
        ctx.info("Tool processing data")
        time.sleep(0.05)
        ctx.info("Tool execution completed")
        return "Tool with logging executed successfully"

    @server.tool()
    async def test_tool_with_progress(ctx: Context) -> str:
        """Report progress 0, 50 and 100 of 100 about 50 ms apart, then answer."""
        for step, progress in enumerate((0, 50, 100)):
            if step:
                await asyncio.sleep(0.05)
            ctx.report_progress(progress, total=100)
        return f"Tool with progress executed successfully (token {ctx.progress_token})"

    @server.tool()
    async def test_sampling(ctx: Context, prompt: str) -> str:
        """Ask the client's LLM to answer ``prompt`` and return what it said.

        Args:
            prompt: the text sent to the client's model.
        """
        reply = await ctx.sample({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100,
        })
        content = (reply or {}).get("content") or {}
        text = content.get("text", "") if isinstance(content, dict) else str(content)
        return f"LLM response: {text}"

    @server.tool()
    def test_elicitation(ctx: Context, message: str) -> str:
        """Ask the user for a username and an email address.

        Args:
            message: the question shown to the user.
        """
        answer = ctx.elicit(message, {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "The user's name"},
                "email": {"type": "string", "description": "The user's email address"},
            },
            "required": ["username", "email"],
        })
        return f"User response: {describe_answer(answer)}"

    @server.tool()
    async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
        """Elicit a form whose fields of every primitive type carry defaults (SEP-1034)."""
        answer = await ctx.elicit("Please review and update the form fields with defaults", {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status",
                           "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": True},
            },
            "required": [],
        })
        return f"Elicitation completed: {describe_answer(answer)}"

    @server.tool()
    def test_elicitation_sep1330_enums(ctx: Context) -> str:
        """Elicit a form with each enum shape of SEP-1330 (titled/untitled, single/multi, legacy)."""
        colors = ["red", "green", "blue"]
        titled = [{"const": "red", "title": "Red"}, {"const": "green", "title": "Green"},
                  {"const": "blue", "title": "Blue"}]
        answer = ctx.elicit("Please pick from each kind of enumeration", {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "description": "Pick one", "enum": colors},
                "titledSingle": {"type": "string", "description": "Pick one (titled)", "oneOf": titled},
                "legacyEnum": {"type": "string", "description": "Pick one (legacy names)",
                               "enum": colors, "enumNames": ["Red", "Green", "Blue"]},
                "untitledMulti": {"type": "array", "description": "Pick any",
                                  "items": {"type": "string", "enum": colors}},
                "titledMulti": {"type": "array", "description": "Pick any (titled)",
                                "items": {"anyOf": titled}},
            },
            "required": [],
        })
        return f"Elicitation completed: {describe_answer(answer)}"

    @server.tool(input_schema=JSON_SCHEMA_2020_12_INPUT)
    def json_schema_2020_12_tool(name: str | None = None,
                                 address: dict[str, Any] | None = None) -> dict[str, Any]:
        """Echo a name and an address, described by a JSON Schema 2020-12 with $defs and $ref."""
        return {"name": name, "address": address}

    @server.tool()
    async def test_reconnection(ctx: Context) -> str:
        """Close the response stream mid-call; the answer arrives on the resumed stream (SEP-1699)."""
        ctx.close_stream()
        await asyncio.sleep(0.2)
        return "Reconnection test completed"

    # ---------------------------------------------------------------- resources
    @server.resource("test://static-text", mime_type="text/plain")
    def static_text() -> str:
        """A fixed text resource."""
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        """A fixed PNG image."""
        return png

    @server.resource("test://template/{id}/data", mime_type="application/json")
    def template_data(id: str) -> dict[str, Any]:
        """JSON data for one id."""
        return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}

    @server.resource("test://watched-resource", mime_type="text/plain")
    def watched_resource() -> str:
        """A resource clients may subscribe to."""
        return "Watched resource content"

    # ---------------------------------------------------------------- prompts
    @server.prompt()
    def test_simple_prompt() -> str:
        """A prompt without arguments."""
        return "This is a simple prompt for testing."

    @server.prompt()
    def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
        """A prompt with two required arguments.

        Args:
            arg1: first argument.
            arg2: second argument.
        """
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.prompt()
    def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:
        """A prompt whose first message embeds a resource.

        Args:
            resourceUri: URI of the resource to embed.
        """
        return [
            Message(EmbeddedResource(resourceUri, text="Embedded resource content for testing.",
                                     mime_type="text/plain")),
            Message("Please process the embedded resource above."),
        ]

    @server.prompt()
    def test_prompt_with_image() -> list[Message]:
        """A prompt whose first message is an image."""
        return [Message(Image(data=png)), Message("Please analyze the image above.")]

    @server.completion(prompt="test_prompt_with_arguments", argument="arg1")
    def complete_arg1(value: str) -> list[str]:
        """Suggestions for ``arg1`` that start with what was typed."""
        return [v for v in PROMPT_ARG_SUGGESTIONS if v.startswith(value)]

    return server


def main(argv: list[str] | None = None) -> None:
    """Parse ``--host``/``--port`` and serve until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=3001, help="TCP port (0 = any free port; default 3001)")
    args = parser.parse_args(argv)
    build_server().run(host=args.host, port=args.port)


if __name__ == "__main__":
    main()
