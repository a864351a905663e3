"""A Rappture ``<choice>`` (or ``<multichoice>``) whose ``<default>`` is neither the value nor the label of
one of its options is refused at registration, naming the input, the default, the options and the file — as
Rappture's tool builder refuses it ("Default value must be a label or value for one of the current choices").
``nanohubmcp rappture`` exits 1 with that one line; a default given as an option's label still serves.

trial64 F4: ``<default>titanium</default>`` over the options steel and aluminium was served silently, the schema
without a default, and a call leaving the input out wrote ``titanium`` into the driver: the program failed with
``KeyError: 'titanium'``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import in_memory

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>beam</id><command>python3 @tool/beam.py @driver</command></tool>
  <input>{input}</input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

CHOICE = """<{kind} id="material">
  <about><label>Material</label></about>
  <option><about><label>Steel</label></about><value>steel</value></option>
  <option><about><label>Aluminium</label></about><value>aluminium</value></option>
  <default>{default}</default>
</{kind}>"""


def _tool(tmp_path: Path, kind: str, default: str) -> Path:
    folder = tmp_path / "badchoice"
    folder.mkdir(exist_ok=True)
    (folder / "tool.xml").write_text(TOOL.format(input=CHOICE.format(kind=kind, default=default)))
    (folder / "beam.py").write_text("raise SystemExit('the program ran')\n")
    return folder / "tool.xml"


def test_the_rappture_command_refuses_the_tool_in_one_line(tmp_path: Path) -> None:
    _tool(tmp_path, "choice", "titanium")
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "rappture", "badchoice/tool.xml", "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "nanohubmcp rappture: error: Rappture tool 'beam': input input.choice(material): its default 'titanium' is "
        "not one of its options (steel (Steel), aluminium (Aluminium)) by value or label, so a call leaving it out "
        "would give the program a value it does not offer; make the default one of them (in badchoice/tool.xml)",
    ], done.stderr
    assert "listening" not in done.stdout + done.stderr


@pytest.mark.parametrize(("kind", "default", "named"), [
    ("choice", "Titanium", "'Titanium'"),
    ("multichoice", "steel, titanium, iron", "'titanium', 'iron'"),
])
def test_add_rappture_tool_refuses_it(tmp_path: Path, kind: str, default: str, named: str) -> None:
    server = MCPServer("choices")
    with pytest.raises(RegistrationError, match=rf"input input\.{kind}\(material\): its default {named} is not one "
                                                r"of its options \(steel \(Steel\), aluminium \(Aluminium\)\)"):
        server.add_rappture_tool(_tool(tmp_path, kind, default), name="beam")
    with in_memory(server) as client:
        assert client.list_tools() == []


@pytest.mark.parametrize(("kind", "default", "published"), [
    ("choice", "Aluminium", "aluminium"),  # a label names its option
    ("choice", "steel", "steel"),
    ("multichoice", "Steel,aluminium", ["steel", "aluminium"]),
])
def test_a_default_naming_an_option_serves(tmp_path: Path, kind: str, default: str, published: object) -> None:
    server = MCPServer("choices")
    server.add_rappture_tool(_tool(tmp_path, kind, default), name="beam")
    with in_memory(server) as client:
        (listed,) = client.list_tools()
        assert listed["inputSchema"]["properties"]["material"]["default"] == published
        assert "required" not in listed["inputSchema"]
