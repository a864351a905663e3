"""A tool.xml ``<min>``, ``<max>``, ``<default>`` or preset past the largest float (``1e400``, an ``<integer>``
of 5,000 digits) is refused at registration naming the input, the element and the file, as a ``nan`` there is.

trial42 T42-14: ``<max>1e400</max>`` was refused with the message for a hand-written schema (``inf at
schema.properties.x.maximum``, no file, no element; the user wrote no schema), and an ``<integer>`` default
of 5,000 digits registered and was published as ``"default": null``.
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

NINES = "9" * 5000


def _tool(tmp_path: Path, element: str) -> Path:
    (tmp_path / "tool.xml").write_text(TOOL.format(input=element))
    return tmp_path


@pytest.mark.parametrize(("element", "found"), [
    ('<number id="x"><max>1e400</max><default>1</default></number>', "input.number(x): its maximum '1e400'"),
    ('<number id="x"><units>K</units><min>-1e400K</min><default>1K</default></number>',
     "input.number(x): its minimum '-1e400K'"),
    (f'<integer id="n"><default>{NINES}</default></integer>',
     "input.integer(n): its default '99999999999999999999… (5000 characters)'"),
    (f'<integer id="n"><max>{NINES}</max><default>1</default></integer>',
     "input.integer(n): its maximum '99999999999999999999… (5000 characters)'"),
    ('<number id="x"><default>1</default><preset><value>1e999</value><label>big</label></preset></number>',
     "input.number(x): its preset '1e999'"),
], ids=["max", "min-units", "integer-default", "integer-max", "preset"])
def test_a_number_past_a_floats_range_is_refused_naming_the_element_and_file(
        tmp_path: Path, element: str, found: str) -> None:
    server = MCPServer("rp-range")
    with pytest.raises(RegistrationError) as caught:
        server.add_rappture_tool(_tool(tmp_path, element), name="t")
    assert re.fullmatch(
        rf"Rappture tool 't': input {re.escape(found)} is past the largest number a client can read \(about "
        rf"1\.8e308\); write a smaller one, or leave it out \(in .*tool\.xml\)", str(caught.value)), caught.value
    with in_memory(server) as client:
        assert client.list_tools() == []


def test_the_largest_float_still_serves(tmp_path: Path) -> None:
    server = MCPServer("rp-range")
    server.add_rappture_tool(_tool(tmp_path, '<number id="x"><max>1.7e308</max><default>1</default></number>'),
                             name="t")
    with in_memory(server) as client:
        assert client.list_tools()[0]["inputSchema"]["properties"]["x"]["maximum"] == 1.7e308
