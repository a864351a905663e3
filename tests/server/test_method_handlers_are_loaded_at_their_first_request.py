"""The method tables load a handler module at its method's first request, then hold the handler.

A server's first answer (``initialize``) needs only the lifecycle handlers; the modules of the
other methods bring the machinery of running tools, shaping results and jobs (see
``nanohubmcp.server.methods``). Their entries start as stand-ins that import the handler at the
first request and put it in their place: every request after the first reaches the handler
itself, in both eras, and answers as before.
"""

from __future__ import annotations

from nanohubmcp import MCPServer
from nanohubmcp.server import methods
from nanohubmcp.server.handlers import prompts, tools
from nanohubmcp.testing import in_memory


def test_a_method_answers_at_its_first_request_and_then_its_handler_is_in_the_table() -> None:
    server = MCPServer("tables", provenance=False)

    @server.tool()
    def add(a: float, b: float) -> float:
        """Sum of two numbers."""
        return a + b

    with in_memory(server) as client:
        for _ in range(2):  # the first request through the stand-in, the second through the handler
            listed = client.request("tools/list")
            assert [t["name"] for t in listed["tools"]] == ["add"]
            answer = client.call_tool("add", {"a": 1.5, "b": 2.25})
            assert answer["content"] == [{"type": "text", "text": "3.75"}]
        assert methods.HANDSHAKE_METHODS["tools/list"] is tools.tools_list
        assert methods.HANDSHAKE_METHODS["tools/call"] is tools.tools_call
        assert client.request("prompts/list") == {"prompts": []}
        assert methods.HANDSHAKE_METHODS["prompts/list"] is prompts.prompts_list


def test_every_method_of_both_eras_keeps_its_place_and_the_lifecycle_is_loaded_at_once() -> None:
    assert list(methods.HANDSHAKE_METHODS)[:4] == ["initialize", "ping", "logging/setLevel", "tools/list"]
    assert set(methods.HANDSHAKE_METHODS) >= {
        "tools/call",
        "resources/read",
        "resources/subscribe",
        "prompts/get",
        "completion/complete",
        "tasks/cancel",
    }
    assert list(methods.MODERN_METHODS)[:3] == ["server/discover", "subscriptions/listen", "tools/list"]
    assert set(methods.MODERN_METHODS) >= {"resources/directory/read", "skills/list", "skills/get", "tasks/update"}
    assert methods.HANDSHAKE_METHODS["initialize"].__module__ == "nanohubmcp.server.handlers.lifecycle"
