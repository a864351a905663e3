"""A Rappture tool's program runs without the server's secrets in its environment (review r41 R41-8).

Before, it got the server's whole environment: a program that evaluates a formula a client typed, or
that prints its environment into its output or its log (a failed run's log tail is in the error), gave
the client the server's bearer token (``MCP_TOKEN``), its Redis URL with the password and the weber path
with the session's cookie. Now those variables (``SERVER_SECRETS``) are dropped; ``PATH``, ``HOME``,
``SESSIONDIR`` and the rest stay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from secret_environment import SECRETS

from nanohubmcp.sources.rappture import load_rappture_tool

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>envshow</id><command>python @tool/envshow.py @driver</command></tool>
  <input><string id="expr"><default>1+1</default></string></input>
  <output><string id="names"><about><label>Names</label></about></string></output>
</run>
"""

PROGRAM = """import json, os, sys
import Rappture

driver = Rappture.library(sys.argv[1])
driver.put("output.string(names).current", json.dumps(sorted(os.environ)))
Rappture.result(driver)
"""


def test_the_program_sees_no_secret_but_its_path_home_and_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "envshow.py").write_text(PROGRAM)
    (tmp_path / "tool.xml").write_text(TOOL)
    tool = load_rappture_tool(tmp_path / "tool.xml", rappture="")
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SESSIONDIR", str(tmp_path))
    result = tool.run({}, plot=False).to_wire()
    assert not result["isError"], result
    names = json.loads(result["structuredContent"]["outputs"]["names"]["value"])
    assert not set(SECRETS) & set(names), names
    assert {"PATH", "HOME", "SESSIONDIR", "PYTHONPATH"} <= set(names), names
    assert not any(value in json.dumps(result) for value in SECRETS.values())
