"""A Sim2L run — the executed notebook with every input, ``run.json``, the files the notebook saved —
is its owner's only under umask 022, as every other file of the state directory is; and a server's
default state directory, first made as the parent of its ``sim2l/`` folder, is ``0700`` too.

Found by a fresh-user trial (trial39 R9): ``sim2l/``, ``.running/`` and each run's folder were
``0755`` and its files ``0644`` (any local user read every caller's inputs and results), and the
default ``~/.local/share/nanohubmcp/<name>`` was made ``0755``. A real kernel runs the notebook.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"

pytestmark = [pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")]


def _loose(root: Path) -> list[str]:
    """Folders and files under ``root`` (and ``root``) that others may read or enter."""
    found = []
    for folder, dirs, files in os.walk(root):
        for name in (folder, *(os.path.join(folder, n) for n in (*dirs, *files))):
            if not os.path.islink(name) and os.lstat(name).st_mode & 0o077:
                found.append(f"{name} {stat.filemode(os.lstat(name).st_mode)}")
    return found


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_sim2l_run_and_its_default_state_directory_are_the_owners_only(
    tmp_path: Path, loose_umask: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    monkeypatch.delenv("NANOHUBMCP_STATE_DIR", raising=False)
    for name in ("SESSIONDIR", "SESSION_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = MCPServer("cool-private")
    server.add_sim2l(str(COOLING))
    shared = tmp_path / "shared-runs"  # a --results-dir made beforehand readable by others
    shared.mkdir(mode=0o755)
    other = MCPServer("cool-shared", state_dir=str(tmp_path / "other"))
    other.add_sim2l(str(COOLING), results_dir=str(shared))
    with serve(server) as one, serve(other) as two:
        for url in (one, two):
            answer = httpx.post(url + "tools/cooling", json={"points": 3}, timeout=200)
            assert answer.status_code == 200, answer.text
    state = tmp_path / "data" / "nanohubmcp" / "cool-private"
    runs = list((state / "sim2l").glob("cooling/*/*/run.json"))
    assert len(runs) == 1, runs
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert _loose(state / "sim2l") == []
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755  # the operator's folder is left as made
    assert len(list(shared.glob("cooling/*/*/run.json"))) == 1
    assert _loose(shared / "cooling") == []
    assert _loose(shared / ".running") == []
