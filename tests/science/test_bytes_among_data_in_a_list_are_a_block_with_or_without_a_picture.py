"""Bytes among the data items of a list a tool returns are a block (an image here), with a picture in the
list or without one; bytes inside a data item, where JSON has no form for them, fail the call both ways,
naming where they are (review r20, L6).

``["cap", {"n": 1}, png]`` failed the call ("$[2] is a bytes") while ``[picture, "cap", {"n": 1}, png]``
made the bytes a block: a list was split into blocks and data only when it held a picture or content object.
"""

from __future__ import annotations

import base64

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.results import shape
from nanohubmcp.testing import in_memory

PIL = pytest.importorskip("PIL.Image")

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)  # (the block is told by its first bytes)


def _types(result: dict) -> list[str]:
    return [block["type"] for block in result["content"]]


def test_bytes_among_data_are_an_image_block_and_the_data_stays_data() -> None:
    alone = shape.tool_result(["cap", {"n": 1}, PNG])
    beside = shape.tool_result([PIL.new("RGB", (2, 2)), "cap", {"n": 1}, PNG])
    assert _types(alone) == ["text", "image", "text"]
    assert _types(beside) == ["image", "text", "image", "text"]
    assert alone["content"][1]["data"] == beside["content"][2]["data"] == base64.b64encode(PNG).decode()
    assert alone["structuredContent"] == beside["structuredContent"] == {"n": 1}


def test_rest_names_the_bytes_block_in_its_place() -> None:
    answered = shape.tool_result(["cap", {"n": 1}, PNG], data_only=True)
    assert answered["structuredContent"] == {"result": ["cap", {"n": 1}, "<image: content[1]>"]}


@pytest.mark.parametrize("picture", [False, True])
def test_bytes_inside_a_data_item_fail_naming_where_they_are(picture: bool) -> None:
    value = [{"png": PNG}, "cap"]
    with pytest.raises(TypeError, match=r"\['png'\] is a bytes"):  # ($[0]['png'], or $['png'] when it is the data)
        shape.tool_result([PIL.new("RGB", (2, 2)), *value] if picture else value)


def test_a_call_over_mcp_answers_the_block_and_the_data() -> None:
    server = MCPServer("bytes-among-data", provenance=False)

    @server.tool()
    def direct() -> list[object]:
        """A caption, a record and a picture's bytes."""
        return ["cap", {"n": 1}, PNG]

    with in_memory(server) as client:
        result = client.call_tool("direct", {})
    assert not result["isError"], result
    assert _types(result) == ["text", "image", "text"]
    assert result["structuredContent"] == {"n": 1}
