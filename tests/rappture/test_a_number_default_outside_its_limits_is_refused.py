"""A tool.xml ``number``/``integer`` whose ``<min>`` is above its ``<max>`` (no value fits), or whose
``<default>`` is outside them (a default no client may send), is refused at registration naming the
input, its values and the file — as Rappture's own number control refuses such a default when the
tool loads ("minimum value allowed here is ..."). Limits and default compare in the declared units.

trial51 F11: ``<min>0</min><max>10</max><default>20</default>`` registered and published
``{"minimum": 0, "maximum": 10, "default": 20}``; ``<min>10</min><max>0</max>`` admitted no value.
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
    (tmp_path / "tool.xml").write_text(TOOL.format(input=element))
    return tmp_path


@pytest.mark.parametrize(("element", "found"), [
    ('<number id="x"><min>0</min><max>10</max><default>20</default></number>',
     "input.number(x): its default '20' is above its maximum '10', so a client could not send it; "
     "change the default or the maximum"),
    ('<number id="x"><min>0</min><max>10</max><default>-1</default></number>',
     "input.number(x): its default '-1' is below its minimum '0', so a client could not send it; "
     "change the default or the minimum"),
    ('<number id="x"><min>10</min><max>0</max><default>5</default></number>',
     "input.number(x): its minimum '10' is above its maximum '0', so no value fits; swap them"),
    ('<integer id="n"><min>10</min><max>0</max></integer>',
     "input.integer(n): its minimum '10' is above its maximum '0', so no value fits; swap them"),
    ('<number id="t"><units>K</units><min>0K</min><max>100C</max><default>400K</default></number>',
     "input.number(t): its default '400K' is above its maximum '100C', so a client could not send it; "
     "change the default or the maximum"),
], ids=["above-max", "below-min", "min-above-max", "integer-min-above-max", "units"])
def test_limits_a_default_cannot_meet_are_refused(tmp_path: Path, element: str, found: str) -> None:
    server = MCPServer("rp-order")
    with pytest.raises(RegistrationError) as caught:
        server.add_rappture_tool(_tool(tmp_path, element), name="t")
    assert re.fullmatch(rf"Rappture tool 't': input {re.escape(found)} \(in .*tool\.xml\)", str(caught.value)), \
        caught.value
    with in_memory(server) as client:
        assert client.list_tools() == []


@pytest.mark.parametrize("element", [
    '<number id="x"><min>0</min><max>10</max><default>10</default></number>',  # at a limit
    '<number id="x"><min>5</min><max>5</max><default>5</default></number>',  # one value
    '<number id="t"><units>K</units><min>0K</min><max>100C</max><default>373K</default></number>',  # 373 < 373.15
    '<number id="x"><max>10</max><default>-5</default></number>',  # one limit
], ids=["at-limit", "single", "units", "one-limit"])
def test_a_default_within_its_limits_serves(tmp_path: Path, element: str) -> None:
    server = MCPServer("rp-order")
    server.add_rappture_tool(_tool(tmp_path, element), name="t")
    with in_memory(server) as client:
        (prop,) = client.list_tools()[0]["inputSchema"]["properties"].values()
        assert prop["default"] <= prop["maximum"]
