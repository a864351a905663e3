"""``nanohubmcp run APP --state-dir DIR`` (and ``--state-url URL``) win over the ``state_dir=`` /
``state_url=`` the app's ``MCPServer(...)`` gives, with one line saying so: an option given on the
command line overrides what the program sets. Found by a fresh-user trial: every script exported
from a notebook with ``%config NanohubMCP.state_dir`` sets ``state_dir=``, and ``--state-dir`` was
silently ignored (the records went to the notebook's directory, ``provenance export --state-dir DIR``
then found none)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import stdio_call

from nanohubmcp.nanohub.child import load_app

APP = """\
from nanohubmcp import MCPServer

server = MCPServer("state-app", {options})


@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"a + b.\"\"\"
    return a + b
"""


def app_file(directory: Path, options: str) -> Path:
    path = directory / f"app_{abs(hash(options))}.py"  # a module name of its own per test
    path.write_text(APP.format(options=options))
    return path


def test_the_command_lines_state_dir_replaces_the_apps_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine, given = tmp_path / "app-state", tmp_path / "command-line-state"
    server = load_app(app_file(tmp_path, f"state_dir={str(mine)!r}"), state_dir=str(given))
    assert server.core.job_service.jobs.directory == str(given)
    note = capsys.readouterr().err
    assert note.startswith(f"note: --state-dir {given} is used, not the state_dir={str(mine)!r} app_"), note
    assert note.endswith(" gives (the command line wins)\n")


def test_the_command_lines_state_url_replaces_the_apps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    given = tmp_path / "shared"
    server = load_app(app_file(tmp_path, "state_url='memory://'"), state_url=f"sqlite://{given}")
    assert server.core.state_url.url == f"sqlite://{given}"
    assert server.core.job_service.jobs.directory == str(given)
    assert "note: --state-url sqlite:///" in capsys.readouterr().err


def test_the_same_setting_or_none_given_is_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same = tmp_path / "same"
    served = load_app(app_file(tmp_path, f"state_dir={str(same)!r}"), state_dir=str(same))
    assert served.core.job_service.jobs.directory == str(same)
    assert load_app(app_file(tmp_path, "version='2'")).core.job_service.jobs.directory != str(same)
    assert capsys.readouterr().err == ""


def test_outside_the_command_an_argument_still_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanohubmcp import MCPServer

    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path / "environment"))
    server = MCPServer("plain", state_dir=str(tmp_path / "argument"))
    assert server.core.job_service.jobs.directory == str(tmp_path / "argument")


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_run_keeps_the_records_where_state_dir_says(tmp_path: Path) -> None:
    mine, given = tmp_path / "app-state", tmp_path / "command-line-state"
    app = app_file(tmp_path, f"state_dir={str(mine)!r}")
    env = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_STATE_DIR"}
    arguments = ["-m", "nanohubmcp", "run", str(app), "--transport", "stdio", "--state-dir", str(given)]
    result, stderr = await stdio_call(arguments, "add", {"a": 2, "b": 3}, cwd=tmp_path, env=env)
    assert result.content[0].text == "5"
    assert (result.meta or {})["io.nanohub/provenance"]
    assert (given / "provenance.sqlite3").exists()
    assert not mine.exists()
    assert f"note: --state-dir {given} is used, not the state_dir={str(mine)!r} {app.name} gives" in stderr
