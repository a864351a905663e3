"""``completion/complete`` checks what the client sent and sends at most 100 suggestions.

MCP 2025-11-25, Server § Utilities § Completion: ``argument.value`` is a required string and
``context.arguments`` maps names to strings; a result holds at most 100 ``values`` with ``total``
and ``hasMore``. A ``context`` that was not an object made the handler fail (-32603, a traceback in
the log) instead of answering -32602; a non-string value was turned into its ``str()``. A missing
value was answered as an empty completion, and a ``ref.name`` or ``ref.uri`` that was not a string
as "Unknown prompt: ['greet']", a Python repr (trial35 Y5).
"""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import RpcError, in_memory

SEEN: list[Any] = []


def build() -> MCPServer:
    server = MCPServer("completion")

    @server.prompt()
    def greet(lang: str, name: str) -> str:
        """Greet someone."""
        return f"{lang}: hello {name}"

    @server.completion(argument="lang", prompt="greet")
    def languages(value: str, context: dict[str, str]) -> Any:
        SEEN.append(context)
        return (f"{value}{i}" for i in range(250_000))  # a generator: only 100 become text

    @server.resource("data://item/{id}")
    def item(id: str) -> str:
        """One item."""
        return id

    @server.completion(argument="name", prompt="greet")
    def one_name(value: str) -> str:
        return value.upper()  # one string is one suggestion, not one per character

    return server


REF = {"type": "ref/prompt", "name": "greet"}


SHAPE = "completion/complete needs params.ref {type, name|uri} and params.argument {name, value}"


@pytest.mark.parametrize("params", [
    {"ref": {"type": "ref/prompt", "name": ["greet"]}, "argument": {"name": "lang", "value": "x"}},
    {"ref": {"type": "ref/prompt"}, "argument": {"name": "lang", "value": "x"}},
    {"ref": {"type": "ref/resource", "uri": {"x": 1}}, "argument": {"name": "id", "value": "x"}},
    {"ref": {"type": "ref/resource", "name": "data://item/{id}"}, "argument": {"name": "id", "value": "x"}},
    {"ref": REF, "argument": {"name": "lang"}},
    {"ref": REF, "argument": {"name": 5, "value": "x"}},
])
def test_a_ref_or_argument_of_the_wrong_shape_is_refused_naming_the_shape(params: dict[str, Any]) -> None:
    with in_memory(build()) as client, pytest.raises(RpcError) as refused:
        client.request("completion/complete", params)
    assert (refused.value.code, refused.value.message) == (-32602, SHAPE)


@pytest.mark.parametrize("params", [
    {"ref": REF, "argument": {"name": "lang", "value": "x"}, "context": [1]},
    {"ref": REF, "argument": {"name": "lang", "value": "x"}, "context": "arguments"},
    {"ref": REF, "argument": {"name": "lang", "value": "x"}, "context": {"arguments": 5}},
    {"ref": REF, "argument": {"name": "lang", "value": "x"}, "context": {"arguments": {"name": 7}}},
    {"ref": REF, "argument": {"name": "lang", "value": ["a", "b"]}},
    {"ref": REF, "argument": {"name": "lang", "value": None}},
])
def test_malformed_params_are_invalid_params_and_the_server_goes_on(params: dict[str, Any]) -> None:
    with in_memory(build()) as client:
        with pytest.raises(RpcError) as refused:
            client.request("completion/complete", params)
        assert refused.value.code == -32602, refused.value
        assert "params." in str(refused.value)
        ok = client.request("completion/complete", {"ref": REF, "argument": {"name": "name", "value": "ada"}})
        assert ok["completion"] == {"values": ["ADA"], "total": 1, "hasMore": False}


def test_a_generator_gives_a_hundred_values_and_no_total() -> None:
    SEEN.clear()
    with in_memory(build()) as client:
        answer = client.request("completion/complete", {
            "ref": REF, "argument": {"name": "lang", "value": "en"}, "context": {"arguments": {"name": "ada"}}})
    completion = answer["completion"]
    assert completion["values"] == [f"en{i}" for i in range(100)]
    assert "total" not in completion  # (a generator is read to its 101st value, not counted)
    assert completion["hasMore"] is True
    assert SEEN == [{"name": "ada"}]


def test_no_completer_is_no_suggestion() -> None:
    with in_memory(build()) as client:
        server_side = client.request("completion/complete", {"ref": REF, "argument": {"name": "other", "value": ""}})
    assert server_side["completion"] == {"values": [], "total": 0, "hasMore": False}
