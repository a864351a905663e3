"""``rappture=`` naming no program (a wrong path, a file that is not executable, a name not on ``PATH``)
is refused at registration in one line naming it and the ways that work; ``""`` still means "run the
``<command>`` directly", and a real program is used.

Found by a user trial (trial39 R10): the tool silently ran off-hub, by its ``<command>``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

TOOLS = Path(__file__).parent / "tools"


@pytest.mark.parametrize("given", ["/nonexistent/rappture", "/etc/passwd", "rappture-nope"])
def test_a_rappture_that_is_no_program_is_refused(given: str) -> None:
    server = MCPServer("wrong", job_store="memory")
    with pytest.raises(RegistrationError) as caught:
        server.add_rappture_tool(TOOLS / "fermi", rappture=given)
    text = str(caught.value)
    assert repr(given) in text
    assert "rappture=''" in text
    assert "\n" not in text


def test_no_rappture_and_a_real_one_are_taken(hub_path: Path) -> None:
    server = MCPServer("right", job_store="memory")
    assert server.add_rappture_tool(TOOLS / "fermi", rappture="", name="off") is not None
    assert server.add_rappture_tool(TOOLS / "fermi", rappture=str(hub_path), name="on") is not None
    assert server.add_rappture_tool(TOOLS / "fermi", rappture="rappture", name="named") is not None
