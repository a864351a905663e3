"""A crate exported into the directory of an earlier crate holds only its own files: the earlier
crate's listed files are removed first, and nothing the earlier crate did not list is deleted —
such a file refuses the export (named, with the way out) unless ``--force``, which keeps it.

Found by a fresh-user trial: exporting a ``slow`` call's record over a ``square`` call's crate left
``code/square.py`` in the crate, described by no entity (another tool's code shipped unlisted).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import NanohubMCPError

pytest.importorskip("rocrate")


def files_in(crate: Path) -> set[str]:
    return {path.relative_to(crate).as_posix() for path in crate.rglob("*") if path.is_file()}


def listed_in(crate: Path) -> set[str]:
    graph = json.loads((crate / "ro-crate-metadata.json").read_text())["@graph"]
    kinds = [(entity["@id"], entity["@type"]) for entity in graph]
    files = {identifier for identifier, kind in kinds if "File" in (kind if isinstance(kind, list) else [kind])}
    return files | {"ro-crate-metadata.json"}


def squared_once(state: Path) -> tuple[MCPServer, str]:
    """A server with state in ``state`` that served one ``square`` call; the call's record URI."""
    server = MCPServer("crates", state_dir=str(state))

    @server.tool()
    def square(x: float) -> float:
        """x squared."""
        return x * x

    server.start(port=0)
    try:
        return server, server.call("square", {"x": 3})["_meta"]["io.nanohub/provenance"]
    finally:
        server.stop()


def test_an_export_over_an_earlier_crate_removes_exactly_its_listed_files(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = MCPServer("crates", state_dir=str(state))

    @server.tool()
    def square(x: float) -> float:
        """x squared."""
        return x * x

    @server.tool()
    def cube(x: float) -> float:
        """x cubed."""
        return x * x * x

    server.start(port=0)
    try:
        squared = server.call("square", {"x": 3})["_meta"]["io.nanohub/provenance"]
        cubed = server.call("cube", {"x": 2})["_meta"]["io.nanohub/provenance"]
    finally:
        server.stop()
    crate = tmp_path / "crate"
    server.export_provenance(squared, crate)
    assert "code/square.py" in files_in(crate)

    def export(uri: str, *extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "nanohubmcp", "provenance", "export", uri.rsplit("/", 1)[1],
                   "--state-dir", str(state), "-o", str(crate), *extra]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    done = export(cubed)
    assert done.returncode == 0, done.stderr
    assert "code/square.py" not in files_in(crate)
    assert files_in(crate) == listed_in(crate)
    assert not (crate / "code" / "square.py").exists()
    assert (crate / "code" / "cube.py").exists()

    # A file the earlier crate does not list is never deleted: the export is refused, naming it.
    (crate / "notes.txt").write_text("my notes")
    (crate / "code" / "helper.py").write_text("# mine")
    refused = export(squared)
    assert refused.returncode == 1
    message = refused.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert "already holds files the earlier crate there does not list (code/helper.py, notes.txt)" in message
    assert "new or empty directory" in message
    assert "--force" in message
    assert (crate / "code" / "cube.py").exists()  # refused before anything was removed
    with pytest.raises(NanohubMCPError, match=r"notes\.txt"):
        server.export_provenance(squared, crate)
    forced = export(squared, "--force")  # they stay, unlisted; the earlier crate's files go
    assert forced.returncode == 0, forced.stderr
    assert files_in(crate) == listed_in(crate) | {"notes.txt", "code/helper.py"}
    assert not (crate / "code" / "cube.py").exists()
    assert (crate / "notes.txt").read_text() == "my notes"

    # Paths outside the directory named by an earlier crate's metadata are never touched.
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (crate / "notes.txt").unlink()
    (crate / "code" / "helper.py").unlink()
    metadata = json.loads((crate / "ro-crate-metadata.json").read_text())
    metadata["@graph"].append({"@id": "../outside.txt", "@type": "File"})
    metadata["@graph"].append({"@id": str(outside), "@type": "File"})
    (crate / "ro-crate-metadata.json").write_text(json.dumps(metadata))
    server.export_provenance(cubed, crate)
    assert outside.read_text() == "keep"
    assert files_in(crate) == listed_in(crate)


def test_a_crate_this_exporter_did_not_make_is_other_files(tmp_path: Path) -> None:
    server, uri = squared_once(tmp_path / "state")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2\n")
    (foreign / "ro-crate-metadata.json").write_text(json.dumps({"@graph": [
        {"@id": "./", "@type": "Dataset", "hasPart": [{"@id": "data.csv"}]},
        {"@id": "data.csv", "@type": "File"},
    ]}))
    with pytest.raises(NanohubMCPError, match=r"already holds other files \(data.csv, ro-crate-metadata.json\)"):
        server.export_provenance(uri, foreign)
    assert (foreign / "data.csv").read_text() == "1,2\n"


@pytest.mark.parametrize("force", [False, True])
def test_a_link_in_the_crate_directory_refuses_the_export_even_with_force(tmp_path: Path, force: bool) -> None:
    """A fresh-user trial: ``code`` replaced by a link to a folder outside; ``--force`` wrote the tool's
    source through it over the user's file there."""
    state = tmp_path / "state"
    server, uri = squared_once(state)
    crate = tmp_path / "crate"
    server.export_provenance(uri, crate)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "square.py").write_text("USERFILE")
    for path in (crate / "code").iterdir():
        path.unlink()
    (crate / "code").rmdir()
    (crate / "code").symlink_to(outside, target_is_directory=True)
    command = [sys.executable, "-m", "nanohubmcp", "provenance", "export", uri.rsplit("/", 1)[1],
               "--state-dir", str(state), "-o", str(crate), *(["--force"] if force else [])]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1, refused.stdout
    assert "holds symbolic links (code)" in refused.stderr
    assert (outside / "square.py").read_text() == "USERFILE"
    with pytest.raises(NanohubMCPError, match="symbolic links"):
        server.export_provenance(uri, crate, force=True)
    assert (outside / "square.py").read_text() == "USERFILE"
