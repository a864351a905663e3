"""trial33 W7: a notebook reads its data by a relative path (``open("data.txt")``: its kernel runs in the
notebook's folder). Exported, the script read it from wherever it was started: the entry ``nanohubmcp
desktop-config start_mcp.py`` prints, started by a desktop client from a directory of its own, stopped at
import with FileNotFoundError (the client saw "Connection closed"). Now the script makes the notebook's
folder the working directory before its cells run, however it is started; what its callers give by a
relative path (``--token-file``, ``$NANOHUBMCP_STATE_DIR``, ``nanohubmcp run APP``, ``server-json -o``) keeps
meaning the caller's."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import SCRIPT_TOKEN, clean_environment, console_script, export
from kernels import run_async
from support import stdio_call, wait_until

pytestmark = pytest.mark.slow

CELLS = (
    "%load_ext nanohubmcp",
    'VAL = int(open("data.txt").read())',  # at import
    "%%mcp_tool\ndef val() -> int:\n    '''The value in data.txt, read as the notebook started.'''\n    return VAL",
    "%%mcp_tool\ndef read(name: str) -> str:\n    '''A file beside the notebook, read when called.'''\n"
    "    with open(name) as f:\n        return f.read().strip()",
)


@pytest.fixture
def folders(write_notebook: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    """The notebook's folder (``tmp_path``: notebook, data files, the exported start_mcp.py) and another
    directory, where the script is started from."""
    notebook = write_notebook(*CELLS, name="rel.ipynb")
    (tmp_path / "data.txt").write_text("42\n")
    (tmp_path / "note.txt").write_text("beside the notebook\n")
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return tmp_path, elsewhere


def test_the_desktop_config_entry_started_from_another_directory_serves_the_cells_files(
    folders: tuple[Path, Path],
) -> None:
    notebook_folder, elsewhere = folders
    printed = subprocess.run([*console_script("nanohubmcp"), "desktop-config", "start_mcp.py"], cwd=notebook_folder,
                             capture_output=True, text=True, timeout=120, check=True, env=clean_environment())
    entry = json.loads(printed.stdout)["mcpServers"]["rel"]
    assert entry["args"][:3] == ["-m", "nanohubmcp", "run"]
    assert "cwd" not in entry  # Claude Desktop has no such key: the script itself moves to its folder
    result, stderr = run_async(stdio_call(entry["args"], "val", {}, cwd=elsewhere))
    assert "FileNotFoundError" not in stderr  # was: importing start_mcp.py failed: FileNotFoundError: 'data.txt'
    assert result.content[0].text == "42"
    called, _ = run_async(stdio_call(entry["args"], "read", {"name": "note.txt"}, cwd=elsewhere))
    assert called.content[0].text == "beside the notebook"  # a tool's call runs there too, as in the kernel
    direct, _ = run_async(stdio_call([str(notebook_folder / "start_mcp.py"), "--transport", "stdio"], "val", {},
                                     cwd=elsewhere))
    assert direct.content[0].text == "42"


def test_the_callers_relative_paths_stay_the_callers(folders: tuple[Path, Path]) -> None:
    notebook_folder, elsewhere = folders
    (elsewhere / "tok").write_text("caller-token\n")
    (elsewhere / "tok").chmod(0o600)
    code = ("import runpy, sys; ns = runpy.run_path(sys.argv[1], run_name='exported'); "
            "print(ns['_command_line_options'](['--token-file', 'tok'])['token'], "
            "ns['server'].core.job_service.jobs.directory)")
    done = subprocess.run([sys.executable, "-c", code, str(notebook_folder / "start_mcp.py")], cwd=elsewhere,
                          capture_output=True, text=True, timeout=120, check=False,
                          env=clean_environment(NANOHUBMCP_STATE_DIR="state"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["caller-token", str(elsewhere / "state")]

    # nanohubmcp run and server-json given paths relative to the caller's directory (the notebook's parent)
    card = subprocess.run([*console_script("nanohubmcp"), "server-json", f"{notebook_folder.name}/start_mcp.py",
                           "-o", "card.json"], cwd=notebook_folder.parent, capture_output=True, text=True,
                          timeout=120, check=False, env=clean_environment())
    assert card.returncode == 0, card.stderr
    assert (notebook_folder.parent / "card.json").is_file()
    assert not (notebook_folder / "card.json").exists()
    log = elsewhere / "run.log"
    with log.open("wb") as sink:
        served = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "run", f"{notebook_folder.name}/start_mcp.py", "--host",
             "127.0.0.1", "--port", "0"], cwd=notebook_folder.parent, stdout=sink, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=clean_environment(MCP_TOKEN=SCRIPT_TOKEN))
    try:
        wait_until(lambda: "listening on 127.0.0.1:" in log.read_text() or served.poll() is not None,
                   "nanohubmcp run to listen or exit")
        assert served.poll() is None, log.read_text()
    finally:
        served.kill()
        served.wait(30)
