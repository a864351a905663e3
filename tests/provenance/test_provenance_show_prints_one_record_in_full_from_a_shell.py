"""``nanohubmcp provenance show CALL_ID`` prints one record as JSON from a shell, its error in full (trial 73, F3:
only ``%mcp history ID`` in a notebook or an exported crate showed more than the listing's cut first line). It
reads the directory ``list`` and ``export`` read (``--state-dir``, ``--name``), any caller's record, and says in one
line where it looked for an id it does not find: a long one cut at 200 characters, as a REST 404 repeats a name, and
an empty one refused as naming nothing (trial 75, F9: a 5,000-character id came back whole, ``''`` was looked up)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from provenance_rows import nanohubmcp_with_data_home

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG data directory is Linux's")


def test_show_prints_the_record_list_names_with_its_whole_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    state = data / "nanohubmcp" / "shown"  # MCPServer("shown")'s default directory under XDG_DATA_HOME
    nanohubmcp = nanohubmcp_with_data_home(data)

    server = MCPServer("shown", state_dir=str(state))

    @server.tool()
    def fail(x: int) -> int:
        """Always fails."""
        raise ValueError(f"no value for x={x}: " + "the reason goes on " * 10 + "\nthe second line")

    server.start(port=0)
    try:
        uri = server.call("fail", {"x": 7})["_meta"]["io.nanohub/provenance"]
    finally:
        server.stop()  # (writes what is pending)
    record_id = record_id_of(uri)
    assert record_id is not None

    listed = nanohubmcp("provenance", "list", "--state-dir", str(state))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split()[:4] == [record_id, "fail", "-", "failed"]

    shown = nanohubmcp("provenance", "show", record_id, "--state-dir", str(state))
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["id"] == record_id
    assert record["tool"] == "fail"
    assert record["status"] == "failed"
    assert record["arguments"] == {"x": 7}
    assert "the reason goes on " * 10 in record["error"]  # whole, not the listing's 60 characters
    assert "the second line" in record["error"]
    assert str(record["code"]["hash"]).startswith("sha256:")

    by_uri = nanohubmcp("provenance", "show", uri, "--name", "shown")  # the URI, the server's default directory
    assert by_uri.returncode == 0, by_uri.stderr
    assert json.loads(by_uri.stdout) == record

    unknown = nanohubmcp("provenance", "show", "nosuchid", "--state-dir", str(state))
    assert unknown.returncode == 1
    assert unknown.stdout == ""
    assert unknown.stderr.startswith(
        f"nanohubmcp provenance: error: no provenance record 'nosuchid' in {state} (unknown")
    assert len(unknown.stderr.splitlines()) == 1
    missing = nanohubmcp("provenance", "show", record_id, "--state-dir", str(tmp_path / "elsewhere"))
    assert missing.returncode == 1
    assert f"no provenance records in {tmp_path / 'elsewhere'}" in missing.stderr
    long_id = nanohubmcp("provenance", "show", "A" * 5000, "--state-dir", str(state))
    assert long_id.returncode == 1
    assert f"no provenance record '{'A' * 198}… in {state} (unknown" in long_id.stderr
    assert len(long_id.stderr) < 1000, len(long_id.stderr)
    for verb in ("show", "export"):
        empty = nanohubmcp("provenance", verb, "", "--state-dir", str(state))
        assert empty.returncode == 1, empty.stderr
        assert empty.stderr == ("nanohubmcp provenance: error: CALL_ID '' names no record: give a record's id or "
                                "URI (nanohubmcp provenance list shows them)\n"), empty.stderr
    needs_id = nanohubmcp("provenance", "show", "--state-dir", str(state))
    assert needs_id.returncode == 2
    assert "nanohubmcp provenance show: error:" in needs_id.stderr
