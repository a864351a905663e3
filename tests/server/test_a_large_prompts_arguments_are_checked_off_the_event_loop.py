"""A ``prompts/get`` of 1 MiB or more has its arguments checked and converted on a worker thread.

A large message was parsed on a worker thread, but a prompt's arguments were then checked (names,
required ones, strings) and converted to the function's parameter types on the event loop, and in
the 2026-07-28 era their canonical JSON hashed for the ``requestState`` binding there too: a
message with a million arguments held the loop for seconds. Ordering, not timing: converting an
argument runs the parameter type's own code (an ``Enum``'s ``_missing_``), which holds until
``/healthz`` has answered. Refusals are the ones a small message gets.
"""

from __future__ import annotations

import enum
import json
import threading
import urllib.request
from typing import Any

import pytest
from support import serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import InvalidParams
from nanohubmcp.server.handlers.prompts import check_arguments
from nanohubmcp.server.wire.request import LARGE_MESSAGE_BYTES

TEXT = "x" * 1_500_000  # a large message
MODERN = "2026-07-28"
HOLD: dict[str, Any] = {}
"""While a test holds conversion: ``checking`` (set when it starts), ``healthz`` (waited for)."""


class Mode(enum.Enum):
    SHORT = "short"
    LONG = "long"

    @classmethod
    def _missing_(cls, value: object) -> Mode:  # "SHORT": the parameter's own code, run while converting
        if HOLD:
            HOLD["checking"].set()
            HOLD["healthz answered first"] = HOLD["healthz"].wait(30)
        return cls.SHORT


def build() -> MCPServer:
    server = MCPServer("large-prompt", provenance=False)

    @server.prompt()
    def brief(text: str, mode: Mode) -> str:
        """Ask for a brief of a text."""
        return f"{mode.value} brief of {len(text)} characters"

    @server.prompt()
    def anything(**kwargs: str) -> str:
        """Any arguments."""
        return f"{len(kwargs)} arguments"

    @server.tool()
    def named(ctx: Context, text: str) -> str:
        """Ask a name, then answer with it and the text's length."""
        name = ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})["content"]["name"]
        return f"{name}: {len(text)}"

    return server


def post(base: str, method: str, params: dict[str, Any], *, modern: bool = False) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if modern:
        params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                                      "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Mcp-Name": params["name"]})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    assert len(body) >= LARGE_MESSAGE_BYTES
    with urllib.request.urlopen(urllib.request.Request(base + "mcp", body, headers), timeout=120) as response:
        raw = response.read().decode()
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        raw = [line[5:] for line in raw.splitlines() if line.startswith("data:")][-1]
    answer: dict[str, Any] = json.loads(raw)
    return answer


@pytest.mark.parametrize("modern", [False, True])
def test_healthz_answers_while_a_large_prompts_arguments_are_converted(modern: bool) -> None:
    HOLD.clear()
    HOLD.update(checking=threading.Event(), healthz=threading.Event())
    try:
        with serve(build()) as base:
            replies: dict[str, Any] = {}
            get = threading.Thread(target=lambda: replies.update(big=post(
                base, "prompts/get", {"name": "brief", "arguments": {"text": TEXT, "mode": "SHORT"}}, modern=modern)))
            get.start()
            try:
                assert HOLD["checking"].wait(120), "the large prompt's arguments were never converted"
                with urllib.request.urlopen(base + "healthz", timeout=20) as health:  # on the loop: meanwhile
                    assert health.status == 200
                HOLD["healthz"].set()
            finally:
                HOLD["healthz"].set()
                get.join(120)
            assert HOLD["healthz answered first"]
            message = replies["big"]["result"]["messages"][0]["content"]["text"]
            assert message == f"short brief of {len(TEXT)} characters"
    finally:
        HOLD.clear()


MANY = {f"k{i}": "v" for i in range(150_000)}  # about 1.9 MB of names


@pytest.mark.parametrize(("name", "arguments"), [
    ("brief", {"text": TEXT, "mode": "short", **MANY}),  # names the prompt does not take
    ("brief", {"text": TEXT}),  # a required one missing
    ("anything", {**MANY, "k7": 7, "k9": [TEXT]}),  # values that are not strings
])
@pytest.mark.parametrize("modern", [False, True])
def test_a_large_prompt_is_refused_as_a_small_one_would_be(name: str, arguments: dict[str, Any],
                                                           modern: bool) -> None:
    server = build()
    prompt = server.core.registry.prompts.get(name)
    assert prompt is not None
    with pytest.raises(InvalidParams) as expected:
        check_arguments(prompt, arguments)
    with serve(server) as base:
        answer = post(base, "prompts/get", {"name": name, "arguments": arguments}, modern=modern)
        assert answer["error"] == {"code": -32602, "message": expected.value.message, "data": expected.value.data}
        fine = post(base, "prompts/get", {"name": "anything", "arguments": MANY}, modern=modern)
        assert fine["result"]["messages"][0]["content"]["text"] == f"{len(MANY)} arguments"


def test_a_large_calls_request_state_binds_its_arguments_as_a_small_ones_does() -> None:
    """2026-07-28: the digest of a large call's arguments is made on a worker thread; the state the
    first round returns is accepted by the retry carrying the same arguments, refused for others."""
    with serve(build()) as base:
        first = post(base, "tools/call", {"name": "named", "arguments": {"text": TEXT}}, modern=True)["result"]
        assert first["resultType"] == "input_required"
        answers = {key: {"action": "accept", "content": {"name": "Ada"}} for key in first["inputRequests"]}
        moved = post(base, "tools/call", {"name": "named", "arguments": {"text": TEXT + "y"},
                                          "requestState": first["requestState"], "inputResponses": answers},
                     modern=True)
        assert moved["error"]["code"] == -32602
        assert "issued for a different request" in moved["error"]["message"]
        again = post(base, "tools/call", {"name": "named", "arguments": {"text": TEXT}}, modern=True)["result"]
        retry = post(base, "tools/call", {"name": "named", "arguments": {"text": TEXT},
                                          "requestState": again["requestState"], "inputResponses": answers},
                     modern=True)
        assert retry["result"]["content"][0]["text"] == f"Ada: {len(TEXT)}"


def test_the_stepwise_digest_is_the_digest() -> None:
    """The digest a large message's arguments get on a worker thread binds them as the loop's would."""
    from nanohubmcp.server.asks.request_state import arguments_digest, arguments_digest_stepwise

    values: list[Any] = [
        {}, [], "", 0, None, True,
        {"b": [1, 2.5, -0.0, 1e-300, 1e16, 0.1, 10**40, True, False, None], "a": {"z": "é\n\"\\\u2028😀", "y": []}},
        {f"k{i}": [i, str(i), {"n": i / 7}] for i in range(2_000)},
        {"é": 1, "e": 2, "E": 3, "": {"": ""}},
    ]
    for value in values:
        assert arguments_digest_stepwise(value) == arguments_digest(value)
