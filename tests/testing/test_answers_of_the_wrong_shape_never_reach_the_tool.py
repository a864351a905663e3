"""A client's answer to elicitation, sampling or roots that is not of the spec's shape never reaches
the tool as if it were one (trial20 F5: ``{"foo": 1}`` reached ``answer["action"]`` and the user read
the tool's ``KeyError`` as the text ``'action'``).

Handshake era: ``ctx.elicit`` / ``ctx.sample`` / ``ctx.list_roots`` raise ``ClientRequestError``
saying what is wrong with the answer. 2026-07-28: the answer comes in the retried request's
``inputResponses``; that request is refused with -32602 and the same text. The handlers of
``nanohubmcp.testing``'s client return whatever they like, so they can send what a broken client
would; answers of the right shape still pass.

Source: MCP 2025-11-25 schema ``ElicitResult`` (``content`` only with accept, in form mode),
``CreateMessageResult``, ``ListRootsResult`` / ``Root``; 2026-07-28 the same.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nanohubmcp import ClientRequestError, Context, MCPServer
from nanohubmcp.testing import MemoryClient, RpcError

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

ERAS = ["2025-11-25", "2026-07-28"]
LABEL = {"type": "object", "properties": {"label": {"type": "string"}}}


def build() -> MCPServer:
    server = MCPServer("answers")

    def heard(ask: Any) -> str:
        try:
            return "answer " + json.dumps(ask(), sort_keys=True)
        except ClientRequestError as exc:  # what ctx.elicit documents
            return f"refused: {exc}"

    @server.tool()
    def label(ctx: Context) -> str:
        """Ask for a label (form mode)."""
        return heard(lambda: ctx.elicit("Label?", LABEL))

    @server.tool()
    def login(ctx: Context) -> str:
        """Ask the user to open a page (URL mode)."""
        return heard(lambda: ctx.elicit_url("Sign in", "https://example.org/login"))

    @server.tool()
    def label_unguarded(ctx: Context) -> str:
        """The trial's tool: reads the action without a guard."""
        answer = ctx.elicit("Label?", LABEL)
        return str(answer["action"])

    @server.tool()
    def summarize(ctx: Context) -> str:
        """Ask the client's model."""
        return heard(lambda: ctx.sample("Summarize MCP"))

    @server.tool()
    def roots(ctx: Context) -> str:
        """Ask for the client's roots."""
        return heard(ctx.list_roots)

    return server


async def outcome(version: str, tool: str, **handlers: Any) -> str:
    """The tool's text (handshake era), or the refusal's code and message (2026-07-28)."""
    async with MemoryClient(build(), version=version, **handlers) as client:
        try:
            result = await client.call_tool(tool)
        except RpcError as exc:
            return f"{exc.code}: {exc.message}"
    return str(result["content"][0]["text"])


def expected(version: str, key: str, problem: str) -> str:
    if version == "2026-07-28":
        return f'-32602: Invalid inputResponses["{key}"]: {problem}'
    return f"refused: {problem}"


ELICIT = "the client's answer to elicitation/create "
BAD_ELICITATIONS = [
    ({"foo": 1}, 'has no "action" (accept, decline or cancel)'),
    ({"action": "ok"}, 'has "action" "ok": it must be "accept", "decline" or "cancel"'),
    ({"action": None, "content": {"label": "x"}}, 'has "action" null: it must be "accept", "decline" or "cancel"'),
    ({"action": "accept", "content": ["S-1"]}, 'has "content" ["S-1"]: it must be an object of the form\'s values'),
    ({"action": "accept", "content": {"label": {"text": "S-1"}}},
     'has content.label {"text": "S-1"}: a form\'s value is a string, a number, a boolean or a list of strings'),
    (["accept"], 'is a list, not an object {"action": "accept"|"decline"|"cancel", "content"?: {...}}'),
    ("accept", 'is a string, not an object {"action": "accept"|"decline"|"cancel", "content"?: {...}}'),
]


@pytest.mark.parametrize("version", ERAS)
@pytest.mark.parametrize(("answer", "problem"), BAD_ELICITATIONS)
async def test_an_elicitation_answer_of_the_wrong_shape_says_what_is_wrong(
        version: str, answer: Any, problem: str) -> None:
    text = await outcome(version, "label", elicitation=lambda params: answer)
    assert text == expected(version, "elicitation_1", ELICIT + problem)


@pytest.mark.parametrize("version", ERAS)
async def test_the_trials_unguarded_tool_reads_the_refusal_not_a_key_error(version: str) -> None:
    async with MemoryClient(build(), version=version, elicitation=lambda params: {"foo": 1}) as client:
        if version == "2026-07-28":
            with pytest.raises(RpcError) as refused:
                await client.call_tool("label_unguarded")
            assert refused.value.code == -32602
            assert refused.value.message.endswith(ELICIT + 'has no "action" (accept, decline or cancel)')
            return
        result = await client.call_tool("label_unguarded")
    assert result["isError"] is True
    assert result["content"][0]["text"] == ELICIT + 'has no "action" (accept, decline or cancel)'


@pytest.mark.parametrize("version", ERAS)
async def test_a_url_mode_answer_carries_no_content(version: str) -> None:
    answer = {"action": "accept", "content": {"token": "s3cret"}}
    text = await outcome(version, "login", elicitation=lambda params: answer,
                         capabilities={"elicitation": {"url": {}}})
    problem = 'carries "content" in URL mode: what the user enters there never passes through the client'
    assert text == expected(version, "elicitation_1", ELICIT + problem)


SAMPLE = "the client's answer to sampling/createMessage "
TEXT = {"type": "text", "text": "a protocol"}
BAD_SAMPLES = [
    ({"role": "assistant", "content": TEXT}, 'has no "model" (the name of the model that answered)'),
    ({"content": TEXT, "model": "m"}, 'has no "role" ("assistant" or "user")'),
    ({"role": "system", "content": TEXT, "model": "m"}, 'has "role" "system": it must be "assistant" or "user"'),
    ({"role": "assistant", "model": "m"},
     'has no "content" (a content block {"type": "text", "text": ...} or a list of blocks)'),
    ({"role": "assistant", "content": "a protocol", "model": "m"},
     'has "content" "a protocol": it must be a content block {"type": "text", "text": ...} or a list of blocks'),
    ({"role": "assistant", "content": TEXT, "model": 7},
     'has "model" 7: it must be the name of the model that answered, a string'),
    ({"role": "assistant", "content": TEXT, "model": "m", "stopReason": 1},
     'has "stopReason" 1: it must be a string ("endTurn", ...)'),
    # Each block of its type's shape (trial22 F2).
    ({"role": "assistant", "content": {"type": "text"}, "model": "m"},
     'has content without "text": a text block is {"type": "text", "text": ...}'),
    ({"role": "assistant", "content": {"type": "text", "text": 5}, "model": "m"},
     "has content.text 5: it must be a string"),
    ({"role": "assistant", "content": [TEXT, {"type": "image", "data": "iVBO"}], "model": "m"},
     'has content[1] without "mimeType": an image block is {"type": "image", "data": ..., "mimeType": ...}'),
    ({"role": "assistant", "content": {"type": "audio", "data": 5, "mimeType": "audio/wav"}, "model": "m"},
     "has content.data 5: it must be a string"),
    ({"role": "assistant", "content": {"type": "video", "data": "x"}, "model": "m"},
     'has content.type "video": a sampled block\'s type is one of "text", "image", "audio", "tool_use", '
     '"tool_result"'),
    ({"role": "assistant", "content": {"type": "tool_use", "id": "1", "name": "f", "input": []}, "model": "m"},
     "has content.input []: it must be an object"),
]


@pytest.mark.parametrize("version", ERAS)
@pytest.mark.parametrize(("answer", "problem"), BAD_SAMPLES)
async def test_a_sampling_answer_of_the_wrong_shape_says_what_is_wrong(version: str, answer: Any, problem: str) -> None:
    text = await outcome(version, "summarize", sampling=lambda params: answer)
    assert text == expected(version, "sampling_1", SAMPLE + problem)


ROOTS = "the client's answer to roots/list "
BAD_ROOTS = [
    ([{"uri": "https://example.org/data"}], 'has roots[0].uri "https://example.org/data": a root is a file:// URI'),
    ([{"uri": "file:///work"}, {"name": "data"}], 'has roots[1] without a "uri" string'),
    ([{"uri": 5}], "has roots[0].uri 5: it must be a file:// URI, a string"),
    ([{"uri": "file:///work", "name": ["w"]}], 'has roots[0].name ["w"]: it must be a string'),
    (["file:///work"], 'has roots[0] "file:///work": a root is an object {"uri": "file:///...", "name"?: ...}'),
]


@pytest.mark.parametrize("version", ERAS)
@pytest.mark.parametrize(("listed", "problem"), BAD_ROOTS)
async def test_a_roots_answer_of_the_wrong_shape_says_what_is_wrong(version: str, listed: Any, problem: str) -> None:
    text = await outcome(version, "roots", roots=listed)
    assert text == expected(version, "roots_1", ROOTS + problem)


CANCEL = {"action": "cancel", "_meta": {"x": 1}}
SAMPLED = {"role": "assistant", "content": [TEXT], "model": "m", "stopReason": "endTurn"}
MEDIA = {"role": "assistant", "model": "m", "stopReason": "toolUse",
         "content": [{"type": "image", "data": "iVBO", "mimeType": "image/png", "_meta": {"x": 1}},
                     {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
                     {"type": "tool_use", "id": "u1", "name": "search", "input": {"q": "MCP"}}]}
ROOT = {"uri": "file:///work", "name": "work"}
UPPER_ROOT = {"uri": "FILE:///work/Data", "name": "data"}
GOOD = [
    ("label", {"elicitation": lambda p: {"action": "accept", "content": {"label": "S-1"}}},
     {"action": "accept", "content": {"label": "S-1"}}),
    ("label", {"elicitation": lambda p: {"action": "decline"}}, {"action": "decline"}),
    ("label", {"elicitation": lambda p: CANCEL}, CANCEL),
    # Content with a refusal, or null, means nothing and is not refused: some clients always send it.
    ("label", {"elicitation": lambda p: {"action": "decline", "content": {"label": "S-1"}}},
     {"action": "decline", "content": {"label": "S-1"}}),
    ("label", {"elicitation": lambda p: {"action": "cancel", "content": {}}}, {"action": "cancel", "content": {}}),
    ("label", {"elicitation": lambda p: {"action": "decline", "content": None}},
     {"action": "decline", "content": None}),
    ("label", {"elicitation": lambda p: {"action": "accept", "content": None}}, {"action": "accept", "content": None}),
    ("summarize", {"sampling": lambda p: SAMPLED}, SAMPLED),
    ("summarize", {"sampling": lambda p: MEDIA}, MEDIA),
    ("roots", {"roots": [ROOT]}, {"roots": [ROOT]}),
    # A scheme has no case (RFC 3986 § 3.1): FILE:/// is a file URI, kept as sent (trial22 F4).
    ("roots", {"roots": [UPPER_ROOT]}, {"roots": [UPPER_ROOT]}),
]


@pytest.mark.parametrize("version", ERAS)
@pytest.mark.parametrize(("tool", "handlers", "answer"), GOOD)
async def test_answers_of_the_spec_shape_reach_the_tool_as_sent(
        version: str, tool: str, handlers: dict[str, Any], answer: dict[str, Any]) -> None:
    assert await outcome(version, tool, **handlers) == "answer " + json.dumps(answer, sort_keys=True)


@pytest.mark.parametrize("version", ERAS)
async def test_a_huge_value_is_named_back_cut_short(version: str) -> None:
    text = await outcome(version, "label", elicitation=lambda params: {"action": "x" * 100_000})
    assert ELICIT + 'has "action" "' + "x" * 59 + '...: it must be' in text
    assert len(text) < 300
