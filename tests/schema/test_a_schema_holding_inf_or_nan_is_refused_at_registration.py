"""A hand-written schema holding ``inf`` or ``nan`` is refused when the tool is registered, saying where:
JSON has no form for them, and the published schema read ``"maximum": null`` (a schema no client could use)
while calls were checked against the number."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Literal

import numpy as np
import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import in_memory


def one(x: float) -> float:
    """Give x back."""
    return x


KEYWORD = "write a finite number or leave the keyword out"
DEFAULT = "write a finite number (or None) as the default, or leave the default out"


@pytest.mark.parametrize(("schema", "where", "advice"), [
    ({"type": "object", "properties": {"x": {"type": "number", "maximum": math.inf}}},
     "inf at schema.properties.x.maximum", KEYWORD),
    ({"type": "object", "properties": {"x": {"enum": [1.0, math.nan]}}}, "nan at schema.properties.x.enum[1]", KEYWORD),
    ({"type": "object", "properties": {"x": {"type": "number", "default": -math.inf}}},
     "-inf at schema.properties.x.default", DEFAULT),
])
def test_the_refusal_names_where(schema: dict, where: str, advice: str) -> None:
    server = MCPServer("inf-schema")
    with pytest.raises(RegistrationError) as caught:
        server.tool(input_schema=schema)(one)
    assert str(caught.value) == f"tool 'one': invalid input schema: {where} has no JSON form; {advice}"
    with in_memory(server) as client:
        assert client.list_tools() == []


def test_an_output_schema_is_refused_alike() -> None:
    server = MCPServer("inf-schema")
    schema = {"type": "object", "properties": {"result": {"type": "number", "exclusiveMinimum": -math.inf}}}
    with pytest.raises(RegistrationError, match=r"output schema: -inf at schema\.properties\.result"):
        server.tool(output_schema=schema)(one)


def test_a_finite_hand_written_schema_still_serves() -> None:
    server = MCPServer("inf-schema")
    server.tool(input_schema={"type": "object", "properties": {"x": {"type": "number", "maximum": 1e308}}})(one)
    with in_memory(server) as client:
        assert client.list_tools()[0]["inputSchema"]["properties"]["x"]["maximum"] == 1e308
        assert client.call_tool("one", {"x": 2})["content"][0]["text"] == "2.0"


@pytest.mark.parametrize(("value", "found"), [
    (np.float32("inf"), "a float32 (np.float32(inf)) at schema.properties.x.maximum"),
    (np.longdouble("inf"), "a longdouble (np.longdouble('inf')) at schema.properties.x.maximum"),
    (Decimal("3.5"), "a Decimal (Decimal('3.5')) at schema.properties.x.maximum"),
    (10**5000, "an int of over 4,300 digits at schema.properties.x.maximum"),
], ids=["float32", "longdouble", "Decimal", "long-int"])
def test_a_value_json_cannot_write_is_refused_naming_it(value: object, found: str) -> None:
    """trial41 Q2, Q3: these were accepted; then every tools/list answered -32603 (or read null)."""
    server = MCPServer("inf-schema")
    with pytest.raises(RegistrationError) as caught:
        server.tool(input_schema={"type": "object", "properties": {"x": {"type": "number", "maximum": value}}})(one)
    assert str(caught.value).startswith(f"tool 'one': invalid input schema: {found} has no JSON form; write ")


@pytest.mark.parametrize(("meta", "found"), [
    ({"x": {1, 2}}, "a set ({1, 2}) at meta.x"),
    ({"x": math.inf}, "inf at meta.x"),
    ({"x": {1: "a"}}, "an int key (1) at meta.x"),
], ids=["set", "inf", "int-key"])
def test_meta_json_cannot_write_is_refused(meta: dict, found: str) -> None:
    """Named from ``meta`` (review r21 L4: "at schema.x", a place that does not exist)."""
    server = MCPServer("inf-meta")
    with pytest.raises(RegistrationError, match=re.escape(f"tool 'one': invalid meta: {found} has no JSON form")):
        server.tool(meta=meta)(one)
    with in_memory(server) as client:
        assert client.list_tools() == []  # and listing still works


def test_a_generated_schema_holding_nan_is_refused_at_registration() -> None:
    """trial41 Q12: Literal[1.5, nan] registered, was published as [1.5, null] and every call failed -32603."""
    server = MCPServer("nan-literal")

    def pick(x: Literal[1.5, float("nan")] = 1.5) -> float:  # type: ignore[valid-type]
        """Give x back."""
        return x

    with pytest.raises(RegistrationError, match=r"tool 'pick': invalid input schema: nan at schema\.properties\.x"):
        server.tool()(pick)


def _holding_itself() -> dict:
    inner: dict = {"a": 1}
    inner["self"] = inner
    return {"loop": inner}


def _nested(levels: int) -> dict:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return {"deep": value}


@pytest.mark.parametrize(("meta", "found"), [
    (_holding_itself(), "a dict at meta.loop.self holds itself and has no JSON form"),
    (_nested(200), "the value at meta.deep[0][0]… nests more than 128 levels deep, past the limit"),
], ids=["itself", "deep"])
def test_meta_holding_itself_or_nested_too_deep_is_refused_naming_the_tool(meta: dict, found: str) -> None:
    """Review r21 L4: a meta holding itself raised RecursionError at registration."""
    server = MCPServer("cyclic-meta")
    with pytest.raises(RegistrationError, match=re.escape(f"tool 'one': invalid meta: {found}")):
        server.tool(meta=meta)(one)


def test_a_schema_holding_itself_is_refused_naming_where() -> None:
    schema: dict = {"type": "object", "properties": {}}
    schema["properties"]["x"] = schema
    server = MCPServer("cyclic-schema")
    with pytest.raises(RegistrationError, match=re.escape("tool 'one': invalid input schema: a dict at "
                                                          "schema.properties.x holds itself")):
        server.tool(input_schema=schema)(one)


def test_a_meta_of_128_levels_still_serves() -> None:
    server = MCPServer("deep-meta")
    server.tool(meta=_nested(127))(one)
    with in_memory(server) as client:
        assert client.list_tools()[0]["name"] == "one"
