"""Small things a fresh-user trial saw (trial51 F10): each a word or a check, each failing before.

- ``nanohubmcp rappture PATH --name ''`` served the tool under its own name without a word: an empty name is a
  usage error (exit 2) saying to leave ``--name`` out for that.
- ``hub-tools`` counted ``r٣`` (an Arabic digit) as a revision ``rNN``, and ``NAME/r1e3`` was refused as "has no
  revision" though no revision could be called that: ASCII digits only, and "not a revision name".
- ``job_workers='4'``'s refusal ended "or None for workers'" (a stray quote).
- ``nanohubmcp run``'s note on one left-out ``run()`` argument said "give --max-request-bytes ... for them to apply".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.run_call import skipped_keywords_note
from nanohubmcp.sources.hub import find_hub_tools, pick

TOOL_XML = Path(__file__).parents[1] / "rappture" / "tools" / "fermi" / "tool.xml"


@pytest.mark.parametrize("command", ["rappture", "sim2l"])
def test_an_empty_tool_name_is_a_usage_error(command: str) -> None:
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", command, str(TOOL_XML), "--name", ""],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "argument --name: a tool name is not empty: leave --name out" in done.stderr


def test_a_revision_is_named_in_ascii_digits(tmp_path: Path) -> None:
    for revision in ("r1", "r\u0663", "r1e3"):
        folder = tmp_path / "slow" / revision / "rappture"
        folder.mkdir(parents=True)
        (folder / "tool.xml").write_text(TOOL_XML.read_text())
    (tool,) = find_hub_tools(tmp_path)
    assert sorted(tool.revisions) == ["r1"]
    with pytest.raises(LookupError, match=r"slow/r1e3: 'r1e3' is not a revision name \(rNN, current or dev\)"):
        pick(tmp_path, ["slow/r1e3"])
    with pytest.raises(LookupError, match=r"slow has no revision 'r2' \(installed: r1\)"):
        pick(tmp_path, ["slow/r2"])


def test_job_workers_refusal_reads_as_a_sentence() -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("x", job_workers="4")  # type: ignore[arg-type]
    assert "or None for as many as workers, not '4'" in str(refused.value)


def test_one_left_out_argument_is_it(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("from nanohubmcp import MCPServer\nserver = MCPServer('x')\nserver.run(max_request_bytes=2048)\n")
    note = skipped_keywords_note(app, "nanohubmcp run", {"max_request_bytes": "--max-request-bytes"}, set())
    assert note is not None
    assert note.endswith("give --max-request-bytes for it to apply"), note
