"""``nanohubmcp provenance list`` and ``export`` given neither ``--state-dir`` nor ``--name`` read the
records of the one server directory under the default root that holds any (trial 18, F12: they looked in
``~/.local/share/nanohubmcp/server``, which no server is named, and the error named only ``--state-dir``).
When none or several hold records, the error names the root (and the servers) and both options."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from provenance_rows import nanohubmcp_with_data_home

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG data directory is Linux's")


def make_records(state: Path, name: str) -> str:
    """The id of a record a server named ``name`` leaves in ``state``."""
    server = MCPServer(name, state_dir=str(state))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.start(port=0)
    try:
        record_id = record_id_of(server.call("add", {"a": 1, "b": 2})["_meta"]["io.nanohub/provenance"])
    finally:
        server.stop()  # (writes what is pending)
    assert record_id is not None
    return record_id


def test_the_lone_server_directory_is_the_default_and_errors_name_where_they_looked(tmp_path: Path) -> None:
    data = tmp_path / "data"
    root = data / "nanohubmcp"
    nanohubmcp = nanohubmcp_with_data_home(data)

    nothing = nanohubmcp("provenance", "list")
    assert nothing.returncode == 1
    assert f"no provenance records in any server's directory under {root}: " in nothing.stderr
    assert "--state-dir DIR" in nothing.stderr
    assert "--name NAME" in nothing.stderr

    first = make_records(root / "band-gaps", "band-gaps")  # where MCPServer("band-gaps") keeps them by default
    pytest.importorskip("rocrate")
    exported = nanohubmcp("provenance", "export", first, "-o", str(tmp_path / "crate"))
    assert exported.returncode == 0, exported.stderr
    listed = nanohubmcp("provenance", "list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == [first]

    other = make_records(root / "other", "other")
    several = nanohubmcp("provenance", "list")
    assert several.returncode == 1
    assert f"2 servers keep provenance records under {root} (band-gaps, other): " in several.stderr
    assert "--name NAME" in several.stderr
    named = nanohubmcp("provenance", "list", "--name", "other")
    assert named.returncode == 0, named.stderr
    assert [line.split()[0] for line in named.stdout.splitlines()[1:]] == [other]
    unknown = nanohubmcp("provenance", "export", first, "--name", "nosuch")
    assert unknown.returncode == 1
    assert f"no provenance records in {root / 'nosuch'}: give the server's state directory" in unknown.stderr
