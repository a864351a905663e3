"""``nanohubmcp provenance list --name cooling``, after ``hub-tools cooling`` served (a server named after its one
tool, whose records ``hub-tools`` keeps in one directory named ``hub-tools``), says where the records are: under
``--name hub-tools``, the tool's among them, with the command to list them (trial72 T72-6: it said only "no
provenance records in .../cooling"). A name ``hub-tools`` keeps no records for says nothing more, nor does a name no
tool's folder has (a path); an empty name is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.wire.state_dir import SESSIONDIR_VARS, default_root


def nanohubmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *args], capture_output=True, text=True, timeout=60)


def test_a_hub_tools_tools_name_is_pointed_at_the_hub_tools_records(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (*SESSIONDIR_VARS, "NANOHUBMCP_STATE_DIR", "NANOHUBMCP_STATE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    hub = os.path.join(default_root(), "hub-tools")
    empty = nanohubmcp("provenance", "list", "--name", "cooling")  # no hub-tools records yet: nothing to add
    assert empty.returncode == 1, empty.stderr
    assert "hub-tools" not in empty.stderr, empty.stderr
    server = MCPServer("cooling", state_dir=hub)  # as `hub-tools cooling` makes it

    @server.tool()
    def cooling(minutes: float) -> float:
        """Cool a cup."""
        return 90 - minutes

    server.start(port=0)
    try:
        assert server.call("cooling", {"minutes": 3})["content"][0]["text"] == "87.0"
        server.core.provenance.recent(1)  # (written now: a read writes what is pending)
    finally:
        server.stop()

    listed = nanohubmcp("provenance", "list", "--name", "cooling")
    assert listed.returncode == 1
    cooling_dir = os.path.join(default_root(), "cooling")
    assert listed.stderr.strip().endswith(  # was: only "no provenance records in DIR: give the server's ..."
        f"no provenance records in {cooling_dir}: give the server's state directory (--state-dir DIR) or its name "
        f"(--name NAME); hub-tools keeps its tools' records under --name hub-tools ({hub}), those of the tool "
        "cooling among them: provenance list --name hub-tools --tool cooling"), listed.stderr
    other = nanohubmcp("provenance", "list", "--name", "fermi")
    assert other.returncode == 1
    assert other.stderr.strip().endswith(f"under --name hub-tools ({hub}): provenance list --name hub-tools shows "
                                         "them"), other.stderr
    # A name no tool's folder has (a path) is not pointed at hub-tools (trial74 F8: '/tmp' was).
    for command in ("list", "show ID"):
        path = nanohubmcp("provenance", *command.split(), "--name", str(tmp_path))
        assert path.returncode == 1
        assert "hub-tools" not in path.stderr, path.stderr
    shown = nanohubmcp("provenance", "list", "--name", "hub-tools", "--tool", "cooling")
    assert shown.returncode == 0, shown.stderr
    assert " cooling " in shown.stdout.splitlines()[1], shown.stdout


@pytest.mark.parametrize("command", ["list", "show ID", "export ID"])
def test_an_empty_name_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """``--name ''`` names no server (trial74 F8: it read the directory of a server named "server")."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("", "  "):
        done = nanohubmcp("provenance", *command.split(), "--name", name)
        assert done.returncode == 1
        assert done.stderr.strip() == (f"nanohubmcp provenance: error: --name {name!r} names no server: give the "
                                       "server's state directory (--state-dir DIR) or its name (--name NAME)"), \
            done.stderr
