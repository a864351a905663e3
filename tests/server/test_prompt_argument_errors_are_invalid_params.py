"""trial19 F6: ``prompts/get`` arguments the client got wrong are invalid params (-32602), never an
internal error, and the message names the arguments at fault and the ones the prompt takes.

An unknown argument was answered -32603 "Prompt 'calc' failed: Invalid arguments for prompt 'calc':
unknown argument(s) bogus", telling the client the server had failed; so was a value a parameter's type
refuses (an Enum) and an argument named like the prompt's ``ctx`` parameter. A prompt function that
raises is still -32603: that one is the server's fault.

Source: JSON-RPC 2.0 § 5.1 (-32602 invalid params, -32603 internal error); MCP 2025-11-25, Server §
Prompts § Error Handling ("Invalid prompt name: -32602", "Missing required arguments: -32602").
"""

from __future__ import annotations

import enum

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, post_rpc, serve

from nanohubmcp import Context, MCPServer

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def build() -> MCPServer:
    server = MCPServer("prompts")

    @server.prompt()
    def calc(expression: str, style: str = "short") -> str:
        """A calculation prompt."""
        return f"calculate {expression} ({style})"

    @server.prompt()
    def paint(color: Color) -> str:
        return f"paint it {color.value}"

    @server.prompt()
    def topic(subject: str, ctx: Context) -> str:
        return f"talk about {subject}"

    @server.prompt()
    def plain() -> str:
        return "no arguments"

    @server.prompt()
    def anything(**named: str) -> str:
        return ",".join(sorted(named))

    @server.prompt()
    def broken(a: str) -> str:
        raise RuntimeError("a bug in the prompt")

    return server


REFUSED = [
    ("calc", {"expression": "1", "bogus": "x"}, "Prompt 'calc' has no argument(s) bogus; it takes: "
                                                "expression (required), style"),
    ("calc", {"style": "long"}, "Prompt 'calc' needs argument(s): expression; it takes: expression (required), "
                                "style"),
    ("paint", {"color": "purple"}, 'arguments.color: "purple" is not a valid Color'),
    ("topic", {"subject": "x", "ctx": "mine"}, "Prompt 'topic' has no argument(s) ctx; it takes: subject (required)"),
    ("plain", {"a": "1", "b": "2"}, "Prompt 'plain' has no argument(s) a, b; it takes no arguments"),
]


@pytest.mark.anyio
async def test_the_official_client_gets_invalid_params_naming_the_arguments() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            for name, arguments, message in REFUSED:
                with pytest.raises(MCPError) as refused:
                    await client.get_prompt(name, arguments)
                assert refused.value.code == INVALID_PARAMS, (name, arguments, refused.value.message)
                assert message in refused.value.message, refused.value.message
            with pytest.raises(MCPError) as failed:  # the function's own failure stays the server's
                await client.get_prompt("broken", {"a": "1"})
            assert failed.value.code == INTERNAL_ERROR
            assert "a bug in the prompt" in failed.value.message
            # ... and it keeps serving
            got = await client.get_prompt("calc", {"expression": "2+2"})
            assert got.messages[0].content.text == "calculate 2+2 (short)"
            got = await client.get_prompt("paint", {"color": "blue"})
            assert got.messages[0].content.text == "paint it blue"
            got = await client.get_prompt("anything", {"z": "1", "y": "2"})
            assert got.messages[0].content.text == "y,z"


def test_the_data_lists_what_the_prompt_takes_and_many_names_are_cut() -> None:
    """Sent raw: the official client refuses to send a non-string value itself."""
    with serve(build()) as url:
        answer = post_rpc(url, "prompts/get", {"name": "calc", "arguments": {"expression": "1", "bogus": "x"}})
        assert answer["error"]["data"] == {"prompt": "calc", "arguments": ["expression", "style"],
                                           "unknown": ["bogus"]}
        answer = post_rpc(url, "prompts/get", {"name": "calc", "arguments": {"expression": 1}})
        assert answer["error"]["code"] == INVALID_PARAMS
        assert answer["error"]["message"] == "Prompt arguments are strings (MCP Server § Prompts); not: expression"
        many = {f"x{i:03}": "v" for i in range(500)}
        answer = post_rpc(url, "prompts/get", {"name": "calc", "arguments": {"expression": "1", **many}})
        assert answer["error"]["code"] == INVALID_PARAMS
        assert answer["error"]["message"].startswith("Prompt 'calc' has no argument(s) x000, x001, ")
        assert " x019 and 480 more; it takes: expression (required), style" in answer["error"]["message"]
        assert len(answer["error"]["data"]["unknown"]) == 20
