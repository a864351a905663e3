"""A state directory that is an existing file, or a path under one, is refused in one line.

Found by a fresh-user trial (trial38 T6): ``MCPServer(state_dir="/tmp/f")`` and ``nanohubmcp run APP
--state-dir /tmp/f`` started, logged that cached results and provenance records were "kept in memory",
and lost them at the stop; a ``sqlite:`` state URL naming a file was already refused so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError


def test_mcpserver_refuses_a_file_or_a_path_under_one_at_construction(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    for state_dir in (tmp_path / "afile", f"{tmp_path}/afile", f"{tmp_path}/afile/sub/dir"):
        with pytest.raises(ConfigurationError, match=r"state_dir .*: '.*/afile' is a file, not a directory; "
                                                     r"name a directory") as refused:
            MCPServer("sf", state_dir=state_dir)  # type: ignore[arg-type]
        assert "\n" not in str(refused.value)


def test_a_directory_to_be_made_keeps_the_cache_on_disk(tmp_path: Path) -> None:
    server = MCPServer("sd", state_dir=str(tmp_path / "new" / "state"))

    @server.tool(cache=True)
    def twice(x: float) -> float:
        """Twice x."""
        return 2 * x

    server.start(port=0)  # a real server
    try:
        assert server.call("twice", {"x": 2}).text == "4.0"
    finally:
        server.stop()
    assert (tmp_path / "new" / "state" / "cache.sqlite3").is_file()


def test_nanohubmcp_run_refuses_it_before_serving(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    (tmp_path / "app.py").write_text("from nanohubmcp import MCPServer\nserver = MCPServer('x')\n")
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "0",
                           "--state-dir", "afile"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "--state-dir 'afile': " in done.stderr, done.stderr
    assert "afile' is a file, not a directory" in done.stderr
    assert "http://" not in done.stdout + done.stderr  # no banner: nothing served


def test_the_notebook_setting_refuses_it_too(tmp_path: Path) -> None:
    from traitlets import TraitError

    from nanohubmcp.jupyter.config import NanohubMCP

    (tmp_path / "afile").write_text("")
    with pytest.raises(TraitError, match=r"NanohubMCP\.state_dir .*afile' is a file, not a directory"):
        NanohubMCP(state_dir=str(tmp_path / "afile"))
    assert NanohubMCP(state_dir=str(tmp_path / "fine")).state_dir == str(tmp_path / "fine")


def test_the_environment_variable_naming_a_file_is_refused_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path / "afile"))
    with pytest.raises(ConfigurationError, match=r"^NANOHUBMCP_STATE_DIR .*afile' is a file, not a directory"):
        MCPServer("env")
    MCPServer("arg", state_dir=str(tmp_path / "fine"))  # the argument wins over the environment


def test_the_environment_variable_naming_a_file_stops_a_script_in_one_line(tmp_path: Path) -> None:
    """As a bad ``NANOHUBMCP_TRACING`` does (fix42c, trial71 T71-6's kind): ``Error: ...``, exit status 2, from a
    script's ``MCPServer(...)`` and from ``nanohubmcp run`` (both without a traceback or the usage block)."""
    (tmp_path / "afile").write_text("")
    (tmp_path / "app.py").write_text("from nanohubmcp import MCPServer\nserver = MCPServer('sf')\n")
    environment = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "afile")}
    script = subprocess.run([sys.executable, "app.py"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                            env=environment, stdin=subprocess.DEVNULL)
    assert script.returncode == 2, script.stderr
    assert script.stderr.startswith("Error: NANOHUBMCP_STATE_DIR "), script.stderr
    assert script.stderr.count("\n") == 1, script.stderr
    command = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "0"], capture_output=True,
                             text=True, timeout=120, cwd=tmp_path, env=environment, stdin=subprocess.DEVNULL)
    assert command.returncode == 2, command.stderr
    assert command.stderr.startswith("nanohubmcp run: error: NANOHUBMCP_STATE_DIR "), command.stderr
    assert "usage:" not in command.stderr, command.stderr
    assert "Traceback" not in command.stderr, command.stderr
