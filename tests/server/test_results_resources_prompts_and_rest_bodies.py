"""``resource_contents``/``resource_result`` and ``prompt_messages``/``prompt_result``.

REST bodies are held over live REST (tests/transports).
"""

from __future__ import annotations

import base64
import math

import mcp_types
import pytest

from nanohubmcp.protocol import jsondec, jsonenc
from nanohubmcp.protocol.content import (
    Audio,
    EmbeddedResource,
    Image,
    ResourceContent,
    ResourceLink,
    TextContent,
)
from nanohubmcp.protocol.result_types import Message, PromptResult, ResourceResult
from nanohubmcp.server.results.shape import prompt_messages, prompt_result, resource_contents, resource_result

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
PNG64 = base64.b64encode(PNG).decode()
URI = "data://settings"


def contents(value: object, mime_type: str | None = None, meta: dict | None = None) -> list[dict]:
    items = resource_contents(value, uri=URI, mime_type=mime_type, meta=meta)
    mcp_types.ReadResourceResult.model_validate({"contents": items})
    jsondec.loads(jsonenc.dumps(items))
    return items


# ---------------------------------------------------------------- resources


def test_string_is_text_with_the_registered_type_or_text_plain() -> None:
    assert contents("hello") == [{"uri": URI, "mimeType": "text/plain", "text": "hello"}]
    assert contents("# T", "text/markdown", {"m": 1}) == [
        {"uri": URI, "mimeType": "text/markdown", "text": "# T", "_meta": {"m": 1}}
    ]


def test_dict_and_list_are_json_text() -> None:
    assert contents({"a": 1, "f": math.nan}) == [
        {"uri": URI, "mimeType": "application/json", "text": '{"a":1,"f":null}'}
    ]
    assert contents([1, "x"]) == [{"uri": URI, "mimeType": "application/json", "text": '[1,"x"]'}]
    assert contents({"a": 1}, "application/vnd.custom+json")[0]["mimeType"] == "application/vnd.custom+json"
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        contents({"s": {1}})


def test_bytes_are_a_base64_blob_not_a_repr() -> None:
    assert contents(PNG) == [{"uri": URI, "mimeType": "image/png", "blob": PNG64}]
    assert contents(bytearray(PNG), "image/png") == [{"uri": URI, "mimeType": "image/png", "blob": PNG64}]
    assert contents(b"\x00\x01")[0]["mimeType"] == "application/octet-stream"
    assert contents(PNG, "image/x-registered")[0]["mimeType"] == "image/x-registered"


def test_numbers_and_none() -> None:
    assert contents(2.5) == [{"uri": URI, "mimeType": "text/plain", "text": "2.5"}]
    assert contents(None) == []


def test_content_objects_become_items() -> None:
    wav = b"RIFF\x00\x00\x00\x00WAVEfmt "
    items = contents(
        [
            Image(data=PNG),
            Audio(data=wav),
            TextContent("t"),
            "s",
            EmbeddedResource("x://e", text="e", mime_type="text/csv"),
            ResourceContent(text="own", mime_type="text/x-own", meta={"o": 1}),
        ],
        meta={"r": 1},
    )
    assert items == [
        {"uri": URI, "mimeType": "image/png", "blob": PNG64, "_meta": {"r": 1}},
        {"uri": URI, "mimeType": "audio/wav", "blob": base64.b64encode(wav).decode(), "_meta": {"r": 1}},
        {"uri": URI, "mimeType": "text/plain", "text": "t", "_meta": {"r": 1}},
        {"uri": URI, "mimeType": "text/plain", "text": "s", "_meta": {"r": 1}},
        {"uri": "x://e", "mimeType": "text/csv", "text": "e", "_meta": {"r": 1}},
        {"uri": URI, "mimeType": "text/x-own", "text": "own", "_meta": {"o": 1}},
    ]


def test_resource_result_is_used_as_given_and_keeps_its_meta() -> None:
    given = ResourceResult([ResourceContent("x://a", "a"), ResourceContent(blob=PNG)], meta={"etag": "7"})
    assert resource_contents(given, uri=URI, mime_type="text/plain") == [
        {"uri": "x://a", "mimeType": "text/plain", "text": "a"},
        {"uri": URI, "mimeType": "text/plain", "blob": PNG64},
    ]
    whole = resource_result(given, uri=URI)
    assert whole["_meta"] == {"etag": "7"}
    assert len(whole["contents"]) == 2
    assert resource_result("x", uri=URI) == {
        "contents": [{"uri": URI, "mimeType": "text/plain", "text": "x"}]
    }
    mcp_types.ReadResourceResult.model_validate(whole)


def test_values_without_a_resource_form() -> None:
    with pytest.raises(TypeError, match="a resource returned a value of type object"):
        contents(object())
    with pytest.raises(TypeError, match="a resource returned a value of type ResourceLink"):
        contents(ResourceLink("x://l"))


# ---------------------------------------------------------------- prompts


def test_a_list_of_strings_becomes_user_messages() -> None:
    messages = prompt_messages(["hello t", "second"])
    assert messages == [
        {"role": "user", "content": {"type": "text", "text": "hello t"}},
        {"role": "user", "content": {"type": "text", "text": "second"}},
    ]
    mcp_types.GetPromptResult.model_validate({"messages": messages})


def test_a_bare_string_is_one_user_message() -> None:
    assert prompt_messages("Explain 2+2") == [
        {"role": "user", "content": {"type": "text", "text": "Explain 2+2"}}
    ]


def test_message_dicts_with_string_block_or_list_content() -> None:
    messages = prompt_messages(
        [
            {"role": "user", "content": "question"},
            {"role": "assistant", "content": {"type": "text", "text": "answer"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "x://r", "text": "r"}}},
            Message("done", "assistant"),
            Image(data=PNG),
        ]
    )
    assert [(m["role"], m["content"]["type"]) for m in messages] == [
        ("user", "text"),
        ("assistant", "text"),
        ("user", "resource"),
        ("assistant", "text"),
        ("user", "image"),
    ]
    assert prompt_messages({"role": "assistant", "content": "one"}) == [
        {"role": "assistant", "content": {"type": "text", "text": "one"}}
    ]


def test_invalid_prompt_values() -> None:
    with pytest.raises(ValueError, match="role must be 'user' or 'assistant'"):
        prompt_messages([{"role": "system", "content": "x"}])
    with pytest.raises(TypeError, match="a prompt returned None"):
        prompt_messages(None)
    with pytest.raises(TypeError, match="cannot use a object"):
        prompt_messages([object()])


def test_prompt_result_description() -> None:
    assert prompt_result("hi", description="Greets") == {
        "description": "Greets",
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
    }
    assert "description" not in prompt_result("hi")
    own = prompt_result(PromptResult(["hi"], description="own", meta={"m": 1}), description="registered")
    assert own["description"] == "own"
    assert own["_meta"] == {"m": 1}
    assert prompt_result(PromptResult(["hi"]), description="registered")["description"] == "registered"
    mcp_types.GetPromptResult.model_validate(own)


def test_objects_with_a_string_form_are_text() -> None:
    import datetime

    assert contents(datetime.date(2026, 7, 28)) == [
        {"uri": URI, "mimeType": "text/plain", "text": "2026-07-28"}
    ]


def test_prompt_result_given_to_prompt_messages() -> None:
    assert prompt_messages(PromptResult(["a"], description="d")) == [
        {"role": "user", "content": {"type": "text", "text": "a"}}
    ]
