"""A Rappture number is written in ASCII decimal digits, and a preset is within its limits.

trial51 F10 f and F11's note: a client's ``"\u0663g"`` (Arabic-Indic 3) or ``"\uff11\uff10g"`` (full-width 10) was
refused as "does not start with a number", and a tool.xml's ``<min>\u0660</min><max>\u0661\u0660</max>`` was read as
0/10 without a word; every setting's number says "write it in ASCII digits: 3" (``plain_number_text``). ``"0x10 g"``
was refused as "a unit name ending in more than one digit" (``0`` in units ``x10``): it is a hexadecimal number.
A preset outside ``<min>``/``<max>`` registered and was published as an example no client may send.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import in_memory

TOOL = """<?xml version="1.0"?>
<run><tool><title>t</title><about>A probe.</about><command>echo @driver</command></tool>
<input>{input}</input><output><string id="o"><about><label>o</label></about></string></output></run>"""


def _tool(tmp_path: Path, element: str) -> Path:
    (tmp_path / "tool.xml").write_text(TOOL.format(input=element), encoding="utf-8")
    return tmp_path


def _refusal(tmp_path: Path, element: str) -> str:
    server = MCPServer("rp-digits")
    with pytest.raises(RegistrationError) as caught:
        server.add_rappture_tool(_tool(tmp_path, element), name="t")
    with in_memory(server) as client:
        assert client.list_tools() == []
    return str(caught.value)


@pytest.mark.parametrize(("element", "found"), [
    ('<number id="x"><min>\u0660</min><max>10</max></number>',
     "input.number(x): its minimum '\u0660': '\u0660' is written with digits that are not ASCII; "
     "write it in ASCII digits: 0"),
    ('<number id="x"><units>g</units><max>\uff11\uff10g</max></number>',
     "input.number(x): its maximum '\uff11\uff10g': '\uff11\uff10g' is written with digits that are not ASCII; "
     "write it in ASCII digits: 10g"),
    ('<integer id="n"><default>1\u0663</default></integer>',
     "input.integer(n): its default '1\u0663': '1\u0663' is written with digits that are not ASCII; "
     "write it in ASCII digits: 13"),
    ('<number id="x"><preset><value>\u0663</value><label>three</label></preset></number>',
     "input.number(x): its preset '\u0663': '\u0663' is written with digits that are not ASCII; "
     "write it in ASCII digits: 3"),
    ('<number id="x"><units>g</units><default>0x10 g</default></number>',
     "input.number(x): its default '0x10 g': '0x10 g' is not a number: 0x10 is hexadecimal, which is not read; "
     "write the number in decimal digits"),
], ids=["arabic-min", "fullwidth-max", "integer-default", "preset", "hex-default"])
def test_a_tool_xml_number_not_in_ascii_decimal_is_refused_at_registration(
        tmp_path: Path, element: str, found: str) -> None:
    message = _refusal(tmp_path, element)
    assert re.fullmatch(rf"Rappture tool 't': input {re.escape(found)} \(in .*tool\.xml\)", message), message


@pytest.mark.parametrize(("element", "found"), [
    ('<number id="x"><min>0</min><max>10</max><preset><value>20</value><label>big</label></preset></number>',
     "input.number(x): its preset '20' is above its maximum '10', so a client could not send it; "
     "change the preset or the maximum"),
    ('<integer id="n"><min>1</min><preset><value>0</value></preset></integer>',
     "input.integer(n): its preset '0' is below its minimum '1', so a client could not send it; "
     "change the preset or the minimum"),
    ('<number id="t"><units>K</units><min>0K</min><max>100C</max>'
     '<preset><value>300K</value></preset><preset><value>400K</value></preset></number>',
     "input.number(t): its preset '400K' is above its maximum '100C', so a client could not send it; "
     "change the preset or the maximum"),
], ids=["above-max", "integer-below-min", "units"])
def test_a_preset_outside_its_limits_is_refused_at_registration(tmp_path: Path, element: str, found: str) -> None:
    message = _refusal(tmp_path, element)
    assert re.fullmatch(rf"Rappture tool 't': input {re.escape(found)} \(in .*tool\.xml\)", message), message


def test_presets_within_their_limits_serve(tmp_path: Path) -> None:
    element = ('<number id="t"><units>K</units><min>0K</min><max>100C</max><default>300K</default>'
               '<preset><value>0K</value></preset><preset><value>373K</value></preset></number>')
    server = MCPServer("rp-digits")
    server.add_rappture_tool(_tool(tmp_path, element), name="t")
    with in_memory(server) as client:
        (prop,) = client.list_tools()[0]["inputSchema"]["properties"].values()
    assert prop["examples"] == [0, 373]


@pytest.mark.parametrize(("value", "found"), [
    ("\u0663g", '"\u0663g" is written with digits that are not ASCII; write it in ASCII digits: 3g'),
    ("\uff11\uff10 g", '"\uff11\uff10 g" is written with digits that are not ASCII; write it in ASCII digits: 10 g'),
    ("1\u0663g", '"1\u0663g" is written with digits that are not ASCII; write it in ASCII digits: 13g'),
    ("0x10 g", '"0x10 g" is not a number: 0x10 is hexadecimal, which is not read; write the number in decimal digits'),
], ids=["arabic", "fullwidth", "mixed", "hex"])
def test_a_clients_number_not_in_ascii_decimal_is_refused_with_what_to_write(
        tmp_path: Path, value: str, found: str) -> None:
    element = '<number id="m"><units>g</units><min>0g</min><max>100g</max><default>1g</default></number>'
    server = MCPServer("rp-digits")
    server.add_rappture_tool(_tool(tmp_path, element), name="t")
    with in_memory(server) as client:
        result = client.call_tool("t", {"m": value})
    assert result["isError"] is True, result
    text = result["content"][0]["text"]
    assert f"Invalid arguments for tool 't': m: {found}" == text, text
