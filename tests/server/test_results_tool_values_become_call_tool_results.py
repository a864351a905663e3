"""``tool_result`` and ``structured_value``: every return-value mapping, and the 0.4.x data-losing faults."""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import io
import math
import pathlib
import struct
import wave
import zlib

import mcp_types
import pytest

from nanohubmcp.protocol import jsondec, jsonenc
from nanohubmcp.protocol.content import (
    UNSET,
    Audio,
    EmbeddedResource,
    Image,
    ImageContent,
    ResourceLink,
    TextContent,
)
from nanohubmcp.protocol.result_types import ToolResult
from nanohubmcp.server.results.shape import BYTES_URI, structured_value, tool_result


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\xff"))
        + chunk(b"IEND", b"")
    )


PNG = tiny_png()
PNG64 = base64.b64encode(PNG).decode()


def checked(wire: dict) -> dict:
    """The wire result must be strict JSON and accepted by the official SDK model."""
    jsondec.loads(jsonenc.dumps(wire))
    mcp_types.CallToolResult.model_validate(wire)
    return wire


def text_of(wire: dict) -> str:
    [block] = wire["content"]
    assert block["type"] == "text"
    return block["text"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        (5.0, "5.0"),
        (10, "10"),
        (2.5e-300, "2.5e-300"),
        (True, "true"),
        (False, "false"),
        (math.nan, "NaN"),  # a text block keeps what the number is (an overflow is not "no value")
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
    ],
)
def test_scalars_become_one_text_block(value: object, text: str) -> None:
    wire = checked(tool_result(value))
    assert wire == {"content": [{"type": "text", "text": text}], "isError": False}


def test_add_returns_the_documented_text() -> None:
    assert text_of(tool_result(2.0 + 3)) == "5.0"


def test_none_is_an_empty_result_not_the_text_none() -> None:
    assert checked(tool_result(None)) == {"content": [], "isError": False}


def test_dict_gives_json_text_and_structured_content() -> None:
    wire = checked(tool_result({"sum": 5, "items": (1, 2), "ok": True}))
    assert wire == {
        "content": [{"type": "text", "text": '{"sum":5,"items":[1,2],"ok":true}'}],
        "isError": False,
        "structuredContent": {"sum": 5, "items": [1, 2], "ok": True},
    }


def test_nan_in_a_dict_becomes_null_in_text_and_structured_content() -> None:
    wire = checked(tool_result({"f": math.nan, "g": [-math.inf, 1.5]}))
    assert text_of(wire) == '{"f":null,"g":[null,1.5]}'
    assert wire["structuredContent"] == {"f": None, "g": [None, 1.5]}
    assert "NaN" not in jsonenc.dumps(wire)
    assert "Infinity" not in jsonenc.dumps(wire)


def test_a_dict_json_cannot_hold_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match=r"not JSON-serialisable: \$\['s'\] is a set"):
        tool_result({"s": {1, 2}})
    with pytest.raises(TypeError, match=r"\$\['a'\]\[1\] is a bytes"):
        tool_result({"a": [1, b"x"]})
    with pytest.raises(TypeError, match=r"a key of \$ is a tuple"):
        tool_result({(1, 2): "pair"})
    loop: dict = {}
    loop["me"] = loop
    with pytest.raises(TypeError, match="circular reference"):
        tool_result(loop)


def test_image_helper_gives_an_image_block_not_a_repr(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "plot.png"
    path.write_bytes(PNG)
    expected = {"content": [{"type": "image", "data": PNG64, "mimeType": "image/png"}], "isError": False}
    assert checked(tool_result(Image(path=path))) == expected
    assert checked(tool_result(Image(data=PNG))) == expected
    assert checked(tool_result(ImageContent(PNG))) == expected


def test_content_objects_and_lists_of_them_are_blocks() -> None:
    wire = checked(tool_result([TextContent("a"), TextContent("b")]))
    assert wire["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    mixed = checked(
        tool_result(
            (
                "Plot:",
                Image(data=PNG),
                ResourceLink("file:///r.csv", "r.csv"),
                EmbeddedResource("x://e", text="t"),
                {"type": "text", "text": "wire"},
            )
        )
    )
    assert [b["type"] for b in mixed["content"]] == ["text", "image", "resource_link", "resource", "text"]
    assert "structuredContent" not in mixed


def test_audio_helper_gives_an_audio_block() -> None:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(b"\x80" * 8)
    wire = checked(tool_result(Audio(data=buffer.getvalue())))
    assert wire["content"][0]["type"] == "audio"
    assert wire["content"][0]["mimeType"] == "audio/wav"


def test_bytes_become_an_image_or_an_embedded_blob() -> None:
    assert checked(tool_result(PNG))["content"] == [{"type": "image", "data": PNG64, "mimeType": "image/png"}]
    assert checked(tool_result(bytearray(b"RIFF\x00\x00\x00\x00WAVEfmt ")))["content"][0]["type"] == "audio"
    wire = checked(tool_result(b"\x00\x01\x02"))
    assert wire["content"] == [
        {
            "type": "resource",
            "resource": {
                "uri": BYTES_URI,
                "mimeType": "application/octet-stream",
                "blob": base64.b64encode(b"\x00\x01\x02").decode(),
            },
        }
    ]
    pdf = checked(tool_result(b"%PDF-1.4\n"))
    assert pdf["content"][0]["resource"]["mimeType"] == "application/pdf"


def test_data_lists_are_json_text_and_structured_content_as_arrays_are() -> None:
    wire = checked(tool_result([1, 2.5, "x", None, {"a": math.nan}]))
    assert wire == {"content": [{"type": "text", "text": '[1,2.5,"x",null,{"a":null}]'}], "isError": False,
                    "structuredContent": {"result": [1, 2.5, "x", None, {"a": None}]}}
    assert "structuredContent" not in tool_result([1, 2], version="2025-03-26")  # none before 2025-06-18
    assert text_of(tool_result(["a", "b"])) == '["a","b"]'  # strings alone are data
    assert text_of(tool_result([])) == "[]"
    with pytest.raises(TypeError, match=r"\$\[0\] is a set"):
        tool_result([{1}])


def test_tool_result_is_used_as_given() -> None:
    given = ToolResult("failed", is_error=True, meta={"k": 1})
    assert checked(tool_result(given)) == {
        "content": [{"type": "text", "text": "failed"}],
        "isError": True,
        "_meta": {"k": 1},
    }
    structured = checked(tool_result(ToolResult(structured_content={"a": 1})))
    assert structured == {
        "content": [{"type": "text", "text": '{"a":1}'}],
        "isError": False,
        "structuredContent": {"a": 1},
    }


def test_other_values() -> None:
    class Colour(enum.Enum):
        RED = "red"

    @dataclasses.dataclass
    class Point:
        x: float
        y: float

    assert text_of(tool_result(Colour.RED)) == "red"
    assert checked(tool_result(Point(1.0, math.nan)))["structuredContent"] == {"x": 1.0, "y": None}
    assert text_of(tool_result(datetime.date(2026, 1, 2))) == "2026-01-02"
    assert text_of(tool_result(pathlib.PurePosixPath("/a/b"))) == "/a/b"
    with pytest.raises(TypeError, match="a tool returned a value of type object, which has no MCP form"):
        tool_result(object())
    with pytest.raises(TypeError, match="returned a value of type set"):
        tool_result({1, 2})


@pytest.mark.parametrize(
    ("version", "has_structured"),
    [
        ("2024-11-05", False),
        ("2025-03-26", False),
        ("2025-06-18", True),
        ("2025-11-25", True),
        ("2026-07-28", True),
    ],
)
def test_structured_content_only_where_the_version_has_it(version: str, has_structured: bool) -> None:
    wire = tool_result({"a": 1}, version=version)
    assert ("structuredContent" in wire) is has_structured
    assert text_of(wire) == '{"a":1}'


def test_output_schema_carries_non_objects_only_from_2026() -> None:
    array = {"type": "array", "items": {"type": "integer"}}
    modern = checked(tool_result([1, 2], output_schema=array, version="2026-07-28"))
    assert modern["structuredContent"] == [1, 2]
    assert text_of(modern) == "[1,2]"
    assert "structuredContent" not in tool_result([1, 2], output_schema=array, version="2025-11-25")
    number = checked(tool_result(5.0, output_schema={"type": "number"}, version="2026-07-28"))
    assert number["structuredContent"] == 5.0
    # A primitive under an object schema is not wrapped: there is nothing to publish, the caller reports it.
    assert "structuredContent" not in tool_result(5.0, output_schema={"type": "object"})
    assert structured_value(5.0) == 5.0


def test_output_schema_with_a_tool_result() -> None:
    wire = tool_result(ToolResult("see data", structured_content={"n": 1}), output_schema={"type": "object"})
    assert wire["structuredContent"] == {"n": 1}
    assert text_of(wire) == "see data"
    assert "structuredContent" not in tool_result(ToolResult("no data"), output_schema={"type": "object"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": (1, 2), "f": math.nan}, {"a": [1, 2], "f": None}),
        ([1, 2], {"result": [1, 2]}),
        ((1, 2), {"result": [1, 2]}),
        ("s", "s"),
        (3, 3),
        (None, None),
        (True, True),
        (ToolResult(structured_content={"k": math.inf}), {"k": None}),
        (ToolResult(structured_content=None), None),
    ],
)
def test_structured_value(value: object, expected: object) -> None:
    assert structured_value(value) == expected


@pytest.mark.parametrize(
    "value", [ToolResult("x"), Image(data=PNG), [TextContent("a")], b"\x89PNG", datetime.date(2026, 1, 1)]
)
def test_structured_value_is_unset_for_content(value: object) -> None:
    assert structured_value(value) is UNSET


def test_structured_value_refuses_non_json() -> None:
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        structured_value({"s": {1}})


def test_json_error_paths_point_at_the_culprit() -> None:
    import types

    with pytest.raises(TypeError, match=r"\$\['b'\]\[1\] is a object"):
        tool_result({"a": [1, (2, 3)], "n": {"ok": 1}, "b": [None, object()]})
    assert checked(tool_result(types.MappingProxyType({"k": 1})))["structuredContent"] == {"k": 1}


def test_results_re_exports_unset_for_the_handlers() -> None:
    from nanohubmcp.server.results import shape as results

    assert results.UNSET is UNSET
    assert "UNSET" in results.__all__
