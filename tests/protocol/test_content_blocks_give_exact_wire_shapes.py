"""Content blocks: exact MCP wire shapes, validated against the official ``mcp_types`` models too."""

from __future__ import annotations

import base64

import mcp_types
import pydantic
import pytest

from nanohubmcp.protocol.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceContent,
    ResourceLink,
    TextContent,
    is_content,
    to_content_block,
)

PNG_HEAD = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
BLOCK = pydantic.TypeAdapter(mcp_types.ContentBlock)


def official(wire: dict) -> dict:
    """Round-trip through the official SDK model: it must accept the shape and keep every field."""
    return BLOCK.validate_python(wire).model_dump(by_alias=True, exclude_none=True)


def test_text_content_with_annotations_and_meta() -> None:
    block = TextContent("hi", annotations={"audience": ["user"], "priority": 0.5}, meta={"k": 1})
    wire = block.to_wire()
    assert wire == {
        "type": "text",
        "text": "hi",
        "annotations": {"audience": ["user"], "priority": 0.5},
        "_meta": {"k": 1},
    }
    assert official(wire) == wire


def test_empty_annotations_and_meta_stay_off_the_wire() -> None:
    assert TextContent("x", annotations={}, meta={}).to_wire() == {"type": "text", "text": "x"}


def test_image_content_encodes_bytes_and_sniffs_the_type() -> None:
    wire = ImageContent(PNG_HEAD).to_wire()
    assert wire == {"type": "image", "data": base64.b64encode(PNG_HEAD).decode(), "mimeType": "image/png"}
    assert official(wire) == wire


def test_image_content_keeps_base64_text_and_accepts_the_mimetype_keyword() -> None:
    data = base64.b64encode(b"\xff\xd8\xff\xe0rest").decode()
    assert ImageContent(data).mime_type == "image/jpeg"  # sniffed from the decoded bytes
    assert ImageContent(data, mimeType="image/x-custom").to_wire()["mimeType"] == "image/x-custom"
    assert ImageContent(base64.b64encode(b"unknown").decode()).mime_type == "image/png"  # 0.4.x default
    assert ImageContent(data, mimeType="image/jpeg").mimeType == "image/jpeg"


def test_image_content_rejects_bad_data() -> None:
    with pytest.raises(ValueError, match="not base64"):
        ImageContent("plot.png")
    with pytest.raises(TypeError, match="bytes or base64 text"):
        ImageContent(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot tell the image format"):
        ImageContent(b"no magic here")
    with pytest.raises(ValueError, match="disagree"):
        ImageContent(PNG_HEAD, "image/png", mimeType="image/gif")
    with pytest.raises(ValueError, match="type/subtype"):
        ImageContent(PNG_HEAD, "png")


def test_audio_content_wire_shape() -> None:
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt "
    wire = AudioContent(wav).to_wire()
    assert wire == {"type": "audio", "data": base64.b64encode(wav).decode(), "mimeType": "audio/wav"}
    assert official(wire) == wire
    assert AudioContent(wav, "audio/x-wav").mime_type == "audio/x-wav"


def test_resource_link_wire_shape_and_defaults() -> None:
    wire = ResourceLink(
        "file:///r.csv",
        "r.csv",
        title="R",
        description="data",
        mime_type="text/csv",
        size=12,
        icons=[{"src": "https://x/i.png"}],
        meta={"m": True},
    ).to_wire()
    assert wire == {
        "type": "resource_link",
        "uri": "file:///r.csv",
        "name": "r.csv",
        "title": "R",
        "description": "data",
        "mimeType": "text/csv",
        "size": 12,
        "icons": [{"src": "https://x/i.png"}],
        "_meta": {"m": True},
    }
    assert official(wire) == wire
    assert ResourceLink("x://a").to_wire() == {"type": "resource_link", "uri": "x://a", "name": "x://a"}
    # 0.4.x positional order: uri, name, description, mimeType.
    assert ResourceLink("x://a", "a", "about", "text/plain").to_wire()["description"] == "about"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"uri": ""}, ValueError),
        ({"uri": "x://a", "size": -1}, ValueError),
        ({"uri": "x://a", "size": True}, ValueError),
        ({"uri": "x://a", "icons": "i.png"}, TypeError),
        ({"uri": "x://a", "name": 3}, TypeError),
    ],
)
def test_resource_link_validation(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        ResourceLink(**kwargs)


def test_embedded_resource_text_and_blob() -> None:
    text = EmbeddedResource(
        "test://embedded", text="hello", mime_type="text/plain", annotations={"audience": ["assistant"]}
    ).to_wire()
    assert text == {
        "type": "resource",
        "annotations": {"audience": ["assistant"]},
        "resource": {"uri": "test://embedded", "mimeType": "text/plain", "text": "hello"},
    }
    blob = EmbeddedResource("test://b", blob=PNG_HEAD).to_wire()
    assert blob["resource"] == {
        "uri": "test://b",
        "mimeType": "image/png",
        "blob": base64.b64encode(PNG_HEAD).decode(),
    }
    assert official(text) == text
    assert official(blob) == blob
    assert EmbeddedResource("test://e").to_wire()["resource"] == {"uri": "test://e", "text": ""}


def test_embedded_resource_validation() -> None:
    with pytest.raises(ValueError, match="not both"):
        EmbeddedResource("x://a", text="t", blob=b"b")
    with pytest.raises(ValueError, match="non-empty"):
        EmbeddedResource("", text="t")


def test_resource_content_fills_uri_and_mime_and_prefers_its_own() -> None:
    item = ResourceContent(text="t")
    assert item.to_wire(uri="x://r", mime_type="text/markdown", meta={"a": 1}) == {
        "uri": "x://r",
        "mimeType": "text/markdown",
        "text": "t",
        "_meta": {"a": 1},
    }
    own = ResourceContent("x://own", "t", mime_type="text/csv", meta={"b": 2})
    assert own.to_wire(uri="x://r", mime_type="text/plain", meta={"a": 1}) == {
        "uri": "x://own",
        "mimeType": "text/csv",
        "text": "t",
        "_meta": {"b": 2},
    }
    with pytest.raises(ValueError, match="no uri"):
        item.to_wire()


def test_resource_content_0_4_spelling_and_blob_sniffing() -> None:
    assert ResourceContent("x://a", content="hi").to_wire() == {"uri": "x://a", "text": "hi"}
    assert ResourceContent("x://a", content=PNG_HEAD).to_wire()["mimeType"] == "image/png"
    assert ResourceContent("x://a", blob=b"\x00\x01").to_wire()["mimeType"] == "application/octet-stream"
    # A registered MIME type wins over a sniffed one, an item's explicit one over both.
    assert (
        ResourceContent("x://a", blob=PNG_HEAD).to_wire(mime_type="image/x-raw")["mimeType"] == "image/x-raw"
    )
    with pytest.raises(ValueError, match="not both"):
        ResourceContent("x://a", text="a", content="b")
    with pytest.raises(ValueError, match="text or blob"):
        ResourceContent("x://a", text="a", blob=b"b")


def test_annotations_and_meta_are_checked() -> None:
    with pytest.raises(ValueError, match="audience"):
        TextContent("x", annotations={"audience": ["robot"]})
    with pytest.raises(ValueError, match="priority"):
        TextContent("x", annotations={"priority": 2})
    with pytest.raises(TypeError, match="annotations must be a dict"):
        TextContent("x", annotations=["user"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="meta must be a dict"):
        TextContent("x", meta=["a"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"meta keys must be str: the key 1 is of type int"):  # (trial45 T45-17)
        TextContent("x", meta={1: "a"})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be a str"):
        TextContent(5)  # type: ignore[arg-type]


def test_to_content_block_accepts_strings_objects_and_wire_dicts_only() -> None:
    assert to_content_block("t") == {"type": "text", "text": "t"}
    wire = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert to_content_block(wire) == wire
    assert is_content(wire)
    assert is_content(TextContent("x"))
    assert not is_content({"a": 1})
    assert not is_content({"type": ["text"]})
    with pytest.raises(ValueError, match="not an MCP content block"):
        to_content_block({"type": "image", "data": "AAAA"})
    with pytest.raises(TypeError, match="cannot use a set"):
        to_content_block({1, 2})


def test_equality_is_by_wire_shape_and_repr_is_short() -> None:
    assert TextContent("a") == TextContent("a")
    assert TextContent("a") != TextContent("b")
    assert TextContent("a") != "a"
    long = ImageContent(b"\x89PNG\r\n\x1a\n" + b"\x00" * 300)
    assert len(repr(long)) < 160
    assert "mime_type='image/png'" in repr(long)
