"""An exported RO-Crate states a license only when its owner chose one (``license=`` /
``--license``): licensing the data is the scientist's decision, not the library's.

Found by a fresh-user trial: every crate declared CC-BY-4.0, and the docs never said so; a
scientist depositing it would have published under a license nobody chose.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import NanohubMCPError

pytest.importorskip("rocrate")


def root_dataset(crate: Path) -> dict[str, Any]:
    graph = json.loads((crate / "ro-crate-metadata.json").read_text())["@graph"]
    return next(entity for entity in graph if entity["@id"] == "./")


@pytest.fixture
def answered(tmp_path: Path, add_server: Callable[[str, Path], MCPServer]) -> tuple[Path, str]:
    state = tmp_path / "state"
    server = add_server("licensed", state)
    try:
        uri = server.call("add", {"a": 1, "b": 2})["_meta"]["io.nanohub/provenance"]
        assert "license" not in root_dataset(server.export_provenance(uri, tmp_path / "plain"))
        stated = root_dataset(server.export_provenance(uri, tmp_path / "cc0", license="CC0-1.0"))
        assert stated["license"] == {"@id": "https://spdx.org/licenses/CC0-1.0"}
        with pytest.raises(NanohubMCPError, match="SPDX identifier"):
            server.export_provenance(uri, tmp_path / "bad", license="CC BY please")
    finally:
        server.stop()
    return state, uri


def export(state: Path, uri: str, out: Path, *more: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "nanohubmcp", "provenance", "export", uri, "--state-dir", str(state), "-o", str(out)]
    return subprocess.run([*argv, *more], capture_output=True, text=True, timeout=60)


def test_the_command_states_the_license_given_and_none_otherwise(answered: tuple[Path, str], tmp_path: Path) -> None:
    state, uri = answered
    assert export(state, uri, tmp_path / "a").returncode == 0
    assert "license" not in root_dataset(tmp_path / "a")
    done = export(state, uri, tmp_path / "b", "--license", "CC-BY-4.0")
    assert done.returncode == 0, done.stderr
    assert root_dataset(tmp_path / "b")["license"] == {"@id": "https://spdx.org/licenses/CC-BY-4.0"}
    done = export(state, uri, tmp_path / "c", "--license", "https://example.org/my-terms")
    assert done.returncode == 0, done.stderr
    assert root_dataset(tmp_path / "c")["license"] == {"@id": "https://example.org/my-terms"}


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("CC-BY-40", "license 'CC-BY-40' is not on the SPDX License List"),  # a typo had an spdx.org link
        ("FOO-BAR-9", "license 'FOO-BAR-9' is not on the SPDX License List"),
        ("LicenseRef-mine", "a LicenseRef- identifier names a license of your own, which spdx.org does not hold"),
        ("MIT OR Apache-2.0", "give an SPDX identifier such as CC-BY-4.0"),
    ],
)
def test_a_license_not_on_the_spdx_list_is_refused_before_the_record_is_looked_up(given: str, why: str) -> None:
    server = MCPServer("licensed")
    with pytest.raises(NanohubMCPError, match=why):
        server.export_provenance("no-such-record", "unused", license=given)


def test_an_identifier_in_any_case_is_stated_as_the_spdx_list_spells_it(
    answered: tuple[Path, str], tmp_path: Path
) -> None:
    state, uri = answered
    done = export(state, uri, tmp_path / "lower", "--license", "cc-by-4.0")
    assert done.returncode == 0, done.stderr
    graph = json.loads((tmp_path / "lower" / "ro-crate-metadata.json").read_text())["@graph"]
    assert root_dataset(tmp_path / "lower")["license"] == {"@id": "https://spdx.org/licenses/CC-BY-4.0"}
    entity = next(e for e in graph if e["@id"] == "https://spdx.org/licenses/CC-BY-4.0")
    assert entity["name"] == "CC-BY-4.0"
