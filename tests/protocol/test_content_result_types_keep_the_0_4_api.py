"""``ToolResult``, ``ResourceResult``, ``PromptResult``, ``Message``, ``Role`` and the 0.4.x aliases."""

from __future__ import annotations

import base64
import math

import mcp_types
import pytest

from nanohubmcp.protocol import content, result_types
from nanohubmcp.protocol.content import (
    UNSET,
    Image,
    ImageContent,
    ResourceContent,
    Role,
    TextContent,
)
from nanohubmcp.protocol.result_types import (
    CallToolResult,
    GetPromptResult,
    Message,
    PromptMessage,
    PromptResult,
    ReadResourceResult,
    ResourceResult,
    ToolResult,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PNG64 = base64.b64encode(PNG).decode()


def test_aliases_are_the_same_classes() -> None:
    assert CallToolResult is ToolResult
    assert ReadResourceResult is ResourceResult
    assert GetPromptResult is PromptResult
    assert PromptMessage is Message


def test_every_public_name_exists() -> None:
    for module in (content, result_types):
        for name in module.__all__:
            assert hasattr(module, name), name


def test_role_is_a_string_enum() -> None:
    assert Role.USER == "user"
    assert Role.ASSISTANT == "assistant"
    assert str(Role.ASSISTANT) == "assistant"
    assert Message("x", Role.ASSISTANT).to_wire()["role"] == "assistant"


def test_tool_result_from_text_blocks_and_wire_dicts() -> None:
    result = ToolResult(
        ["a", TextContent("b"), {"type": "image", "data": PNG64, "mimeType": "image/png"}, Image(data=PNG)],
        meta={"trace": "1"},
    )
    wire = result.to_wire()
    assert wire == {
        "content": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b"},
            {"type": "image", "data": PNG64, "mimeType": "image/png"},
            {"type": "image", "data": PNG64, "mimeType": "image/png"},
        ],
        "isError": False,
        "_meta": {"trace": "1"},
    }
    mcp_types.CallToolResult.model_validate(wire)


def test_tool_result_keeps_0_4_shapes() -> None:
    result = ToolResult("oops", True)  # 0.4.x positional order: content, is_error
    assert result.is_error
    assert result.content[0].text == "oops"
    assert result.to_wire() == {"content": [{"type": "text", "text": "oops"}], "isError": True}
    assert ToolResult().to_wire() == {"content": [], "isError": False}
    assert ToolResult(5.0).to_wire()["content"] == [{"type": "text", "text": "5.0"}]
    assert not ToolResult().has_structured_content
    assert ToolResult().structured_content is UNSET


def test_structured_content_adds_its_json_text_when_content_is_empty() -> None:
    wire = ToolResult(structured_content={"x": math.nan, "y": 1}).to_wire()
    assert wire == {
        "content": [{"type": "text", "text": '{"x":null,"y":1}'}],
        "isError": False,
        "structuredContent": {"x": None, "y": 1},
    }
    kept = ToolResult("summary", structured_content={"y": 1}).to_wire()
    assert kept["content"] == [{"type": "text", "text": "summary"}]
    assert ToolResult(structured_content=None).to_wire()["structuredContent"] is None  # JSON null is a value
    mcp_types.CallToolResult.model_validate(wire)


def test_tool_result_validation() -> None:
    with pytest.raises(TypeError, match="is_error must be a bool"):
        ToolResult("x", is_error="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot use a object"):
        ToolResult([object()])
    with pytest.raises(ValueError, match="not an MCP content block"):
        ToolResult({"data": 1})
    with pytest.raises(TypeError, match="not JSON serializable"):
        ToolResult(structured_content={1, 2}).to_wire()


def test_resource_result_wire_shape() -> None:
    result = ResourceResult(
        [
            ResourceContent("x://a", "text", mime_type="text/plain"),
            "more",
            PNG,
            {"uri": "x://c", "text": "{}", "mimeType": "application/json"},
        ],
        meta={"etag": "1"},
    )
    wire = result.to_wire(uri="x://read")
    assert wire == {
        "contents": [
            {"uri": "x://a", "mimeType": "text/plain", "text": "text"},
            {"uri": "x://read", "text": "more"},
            {"uri": "x://read", "mimeType": "image/png", "blob": PNG64},
            {"uri": "x://c", "mimeType": "application/json", "text": "{}"},
        ],
        "_meta": {"etag": "1"},
    }
    mcp_types.ReadResourceResult.model_validate(wire)
    assert ResourceResult("plain").to_wire(uri="x://r") == {"contents": [{"uri": "x://r", "text": "plain"}]}
    assert ResourceResult().to_wire() == {"contents": []}


def test_resource_result_validation() -> None:
    with pytest.raises(TypeError, match="cannot use a int as resource contents"):
        ResourceResult([1])
    with pytest.raises(ValueError, match="unknown keys"):
        ResourceResult([{"text": "a", "extra": 1}])


def test_message_content_forms() -> None:
    assert Message("hi").to_wire() == {"role": "user", "content": {"type": "text", "text": "hi"}}
    assert Message({"text": "hi"}, "assistant").to_wire() == {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
    }
    assert Message(Image(data=PNG)).to_wire()["content"] == {
        "type": "image",
        "data": PNG64,
        "mimeType": "image/png",
    }
    assert isinstance(Message("hi").content, TextContent)  # 0.4.x kept a TextContent there
    with pytest.raises(ValueError, match="role must be 'user' or 'assistant'"):
        Message("hi", role="system")
    with pytest.raises(ValueError, match="not an MCP content block"):
        Message({"kind": "text"})


def test_prompt_result_normalises_every_message_form() -> None:
    result = PromptResult(
        [
            "first",
            Message("second", "assistant"),
            {"role": "assistant", "content": "third"},
            {"content": {"type": "text", "text": "fourth"}},
            {"role": "user", "content": ["fifth", ImageContent(PNG)]},
            Image(data=PNG),
        ],
        description="d",
        meta={"m": 1},
    )
    wire = result.to_wire()
    assert [(m["role"], m["content"]["type"]) for m in wire["messages"]] == [
        ("user", "text"),
        ("assistant", "text"),
        ("assistant", "text"),
        ("user", "text"),
        ("user", "text"),
        ("user", "image"),
        ("user", "image"),
    ]
    assert wire["description"] == "d"
    assert wire["_meta"] == {"m": 1}
    mcp_types.GetPromptResult.model_validate(wire)
    assert PromptResult("only").to_wire() == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "only"}}]
    }


def test_prompt_result_validation() -> None:
    with pytest.raises(ValueError, match="needs 'content'"):
        PromptResult([{"role": "user", "text": "x"}])
    with pytest.raises(ValueError, match="role must be"):
        PromptResult([{"role": "robot", "content": "x"}])
    with pytest.raises(TypeError, match="description must be a str"):
        PromptResult([], description=3)  # type: ignore[arg-type]


def test_unset_is_a_falsy_singleton() -> None:
    assert repr(UNSET) == "UNSET"
    assert not UNSET
    assert type(UNSET)() is UNSET
