"""``provenance export -o DIR`` (``server.export_provenance(uri, DIR)``) refuses a ``DIR`` that is itself a
symbolic link at once, in one line, writing nothing through it; and a ``DIR`` holding a whole tree is
refused as soon as enough of it is found (``... and more``), not after walking all of it.

Found by a fresh-user trial (trial39 R8): ``-o rootlink`` (a link to ``/``) walked the whole file system
for two minutes and died with a ``FileNotFoundError`` traceback on a vanished ``/proc`` entry; ``-o /usr``
took 16 s to refuse, and a link to an empty folder had the crate written through it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from provenance.test_a_crate_written_over_an_earlier_one_holds_only_its_own_files import squared_once

from nanohubmcp.errors import NanohubMCPError

pytest.importorskip("rocrate")


def test_a_directory_that_is_a_link_is_refused_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server, uri = squared_once(state)
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    with pytest.raises(NanohubMCPError) as refused:
        server.export_provenance(uri, link)
    assert str(refused.value) == (f"{link} is a symbolic link (to {target}): a crate is written into a real folder "
                                  "only; give the folder itself, or a new or empty directory")
    command = [sys.executable, "-m", "nanohubmcp", "provenance", "export", uri.rsplit("/", 1)[1],
               "--state-dir", str(state), "-o", str(link)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout
    assert done.stderr.strip().splitlines() == [f"nanohubmcp provenance: error: {refused.value}"]
    assert list(target.iterdir()) == []


def test_a_directory_holding_a_tree_is_refused_once_enough_of_it_is_found(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server, uri = squared_once(state)
    full = tmp_path / "full"
    full.mkdir()
    for n in range(40):
        (full / f"f{n:02d}.txt").write_text("x")
    with pytest.raises(NanohubMCPError) as refused:
        server.export_provenance(uri, full)
    assert str(refused.value).startswith(f"{full} already holds other files (")
    assert " and more): give a new or empty directory" in str(refused.value)
