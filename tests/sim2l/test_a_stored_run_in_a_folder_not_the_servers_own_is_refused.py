"""A stored Sim2L run is answered from only when every folder from ``<results_dir>/<name>`` down to it is the
server's user's alone (no link): a run planted by another user, behind a symbolic link or in a folder open to the
group is refused with a message naming the folder, and nothing of it is decoded. A real kernel makes the first run.

Review r41 R41-9 (HIGH): in a group-shared ``results_dir`` (``2775``) a member renamed ``<results>/cooling`` and
put a stored run of their own under the run id of common inputs (anyone who can read the notebook computes it);
the next call with those inputs was answered from it (``"cached": true``, forged outputs) and a scrap holding a
jsonpickle ``py/reduce`` ran a command in the server.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"

pytestmark = [pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")]


def plant(results: Path, marker: Path, where: Path) -> None:
    """What a group member does: the server's ``cooling`` renamed away (to ``cooling.old``), a copy of it whose
    outputs run a command when decoded put at ``where`` (the same path, or one a link there points to)."""
    if not (results / "cooling.old").exists():
        os.rename(results / "cooling", results / "cooling.old")
    shutil.copytree(results / "cooling.old", where, symlinks=True)
    evil = json.dumps({"py/reduce": [{"py/function": "os.system"}, {"py/tuple": [f"id > {marker}"]}]})
    for executed in where.glob("*/*/*.ipynb"):
        notebook = json.loads(executed.read_text())
        for cell in notebook["cells"]:
            for out in cell.get("outputs", []):
                for scrap in out.get("data", {}).values():
                    if isinstance(scrap, dict) and scrap.get("name") == "final_temperature":
                        scrap["data"] = evil
        executed.write_text(json.dumps(notebook))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_planted_stored_run_is_refused_naming_its_folder(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    results = tmp_path / "results"
    results.mkdir()
    os.chmod(results, 0o2775)  # a project space without the sticky bit
    marker = tmp_path / "PLANTED-RUN-DECODED"
    server = MCPServer("planted-sim2l", state_dir=str(tmp_path / "state"))
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
        server.add_sim2l(str(COOLING), results_dir=str(results))
    warned = [r.getMessage() for r in caplog.records if "Sim2L results_dir" in r.getMessage()]
    with serve(server) as url:
        first = httpx.post(url + "tools/cooling", json={"points": 3}, timeout=250)
        assert first.status_code == 200, first.text
        assert first.json()["cached"] is False

        def second() -> str:
            answer = httpx.post(url + "tools/cooling", json={"points": 3}, timeout=250)
            assert answer.status_code != 200, answer.text
            assert '"cached"' not in answer.text
            assert not marker.exists(), marker.read_text()
            return answer.text

        planted = results / "cooling"
        plant(results, marker, planted)
        os.chmod(planted, 0o2770)  # a folder the group may write to
        assert f"folder {planted} is open to group or other (mode 2770)" in second()

        shutil.rmtree(planted)
        elsewhere = tmp_path / "elsewhere"
        plant(results, marker, elsewhere)
        planted.symlink_to(elsewhere)
        assert f"folder {planted} is a symbolic link" in second()

        if os.geteuid() == 0:  # (only root can make files of another uid; the CI runs as root)
            planted.unlink()
            plant(results, marker, planted)
            for folder, dirs, files in os.walk(planted):
                for name in (folder, *(os.path.join(folder, n) for n in (*dirs, *files))):
                    os.lchown(name, 65534, 65534)
            assert f"folder {planted} is owned by uid 65534, not by the server's user" in second()
    assert len(warned) == 1, warned  # said once, at registration
    assert "without the sticky bit" in warned[0], warned
