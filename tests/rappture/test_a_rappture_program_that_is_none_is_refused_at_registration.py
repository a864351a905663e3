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


def test_a_relative_rappture_path_is_taken_from_the_directory_of_registration(
    hub_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trial41 Q7: a relative path passed the check against the current directory, but the run started it from
    its own working directory ("No such file or directory" on every call)."""
    monkeypatch.chdir(tmp_path)
    server = MCPServer("relative", job_store="memory", state_dir=tmp_path / "state")
    server.add_rappture_tool(TOOLS / "fermi", rappture="bin/rappture", name="rel", plot=False)
    server.start(port=0)
    try:
        result = server.call("rel", {})
    finally:
        server.stop()
    assert not result.is_error, result.text


def test_a_rappture_that_is_no_path_is_refused_naming_the_tool() -> None:
    server = MCPServer("typed", job_store="memory")
    with pytest.raises(RegistrationError, match="rappture=5 is not a path"):
        server.add_rappture_tool(TOOLS / "fermi", rappture=5, name="five")  # type: ignore[arg-type]
