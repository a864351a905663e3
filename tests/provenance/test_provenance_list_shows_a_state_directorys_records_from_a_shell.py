"""``nanohubmcp provenance list`` shows a state directory's newest provenance records from a shell, newest
first, with the ids ``provenance export`` takes (trial 18, F7: only ``%mcp history``, in a notebook, listed
them). It reads the records file without writing to it, while the server that writes it runs."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of


def nanohubmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *args], capture_output=True, text=True, timeout=60)


def files_of(directory: Path) -> dict[str, str]:
    """The digests of the database and its write-ahead log (not of ``-shm``, the readers' shared memory)."""
    paths = sorted(path for path in directory.iterdir() if not path.name.endswith("-shm"))
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths}


def test_list_shows_the_newest_records_and_export_takes_their_ids(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = MCPServer("listing", state_dir=str(state))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    def fail(x: int) -> int:
        """Always fails."""
        raise ValueError(f"no value for x={x}\nthe second line")

    server.start(port=0)
    try:
        ids = [record_id_of(server.call("add", {"a": n, "b": 1})["_meta"]["io.nanohub/provenance"]) for n in range(3)]
        failed = record_id_of(server.call("fail", {"x": 7})["_meta"]["io.nanohub/provenance"])
        server.core.provenance.recent(1)  # (written now: a read writes what is pending)
        before = files_of(state)

        listed = nanohubmcp("provenance", "list", "--state-dir", str(state))
        assert listed.returncode == 0, listed.stderr
        header, *lines = listed.stdout.splitlines()
        assert header.split()[:6] == ["record", "tool", "caller", "status", "started", "(UTC)"]
        assert [line.split()[0] for line in lines] == [failed, *reversed(ids)]  # newest first
        assert lines[0].split()[1:4] == ["fail", "-", "failed"]  # (called in process: no caller)
        assert lines[0].endswith("no value for x=7")  # the error's first line
        assert all(line.split()[1:4] == ["add", "-", "completed"] for line in lines[1:])

        some = nanohubmcp("provenance", "list", "--state-dir", str(state), "--tool", "add", "--limit", "2")
        assert some.returncode == 0, some.stderr
        assert [line.split()[0] for line in some.stdout.splitlines()[1:]] == [ids[2], ids[1]]
        none = nanohubmcp("provenance", "list", "--state-dir", str(state), "--tool", "nosuch")
        assert none.returncode == 0, none.stderr
        assert none.stdout.startswith("No provenance records of the tool 'nosuch' in ")
        assert files_of(state) == before  # read, not written: the server's own file as it was
        assert server.call("add", {"a": 1, "b": 1})["content"][0]["text"] == "2"  # the server goes on
    finally:
        server.stop()

    for limit in ("0", "10001", "many"):
        wrong = nanohubmcp("provenance", "list", "--state-dir", str(state), "--limit", limit)
        assert wrong.returncode == 2, wrong.stderr
        assert "nanohubmcp provenance list: error: argument --limit" in wrong.stderr
    missing = nanohubmcp("provenance", "list", "--state-dir", str(tmp_path / "elsewhere"))
    assert missing.returncode == 1
    assert f"no provenance records in {tmp_path / 'elsewhere'}" in missing.stderr

    unknown = nanohubmcp("provenance", "export", "nosuchid", "--state-dir", str(state), "-o", str(tmp_path / "c"))
    assert unknown.returncode == 1
    assert "nanohubmcp provenance list" in unknown.stderr  # where the ids are, from a shell
    assert f"no provenance record 'nosuchid' in {state} (unknown" in unknown.stderr  # where it looked (trial20 F11)
    pytest.importorskip("rocrate")
    exported = nanohubmcp("provenance", "export", failed, "--state-dir", str(state), "-o", str(tmp_path / "crate"))
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "crate" / "ro-crate-metadata.json").exists()
