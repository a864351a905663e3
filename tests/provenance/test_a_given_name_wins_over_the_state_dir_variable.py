"""``nanohubmcp provenance list --name NAME`` with ``$NANOHUBMCP_STATE_DIR`` set reads the records of the
server named NAME: an option on the command line wins over the environment (trial20 F7: the variable won
silently, and the error advised giving the --name just given). When the variable chose a directory
without records, the error says the variable named it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_provenance_commands_read_the_lone_servers_records_by_default import make_records

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG data directory is Linux's")


def test_name_wins_over_the_variable_and_the_variable_is_named_when_it_chose(tmp_path: Path) -> None:
    data = tmp_path / "data"
    elsewhere = tmp_path / "nowhere"
    env = {key: value for key, value in os.environ.items() if key not in ("SESSIONDIR", "SESSION_DIR")}
    env["XDG_DATA_HOME"] = str(data)
    env["NANOHUBMCP_STATE_DIR"] = str(elsewhere)

    def nanohubmcp(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "nanohubmcp", *args], capture_output=True, text=True,
                              timeout=60, env=env)

    record_id = make_records(data / "nanohubmcp" / "band-gaps", "band-gaps")
    named = nanohubmcp("provenance", "list", "--name", "band-gaps")
    assert named.returncode == 0, named.stderr
    assert record_id in named.stdout

    by_variable = nanohubmcp("provenance", "list")
    assert by_variable.returncode == 1
    assert f"no provenance records in {elsewhere} (named by $NANOHUBMCP_STATE_DIR): " in by_variable.stderr
