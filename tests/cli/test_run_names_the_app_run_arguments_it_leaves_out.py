"""``nanohubmcp run APP`` serves the app's ``server`` itself and never makes the app's own
``server.run(...)`` call, so a ``public_url=`` / ``path_prefix=`` written there (as the proxy docs show)
does not apply. It says so in one line naming those arguments and the options that give them, leaving
out the ones the command line gives (trial16 F1: the app served at ``/`` with loopback URLs, ``/calc/mcp``
was 404, and nothing was said)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

APP = '''\
from nanohubmcp import MCPServer

server = MCPServer("proxied")

if __name__ == "__main__":
    server.run(path_prefix="/calc", public_url="https://mcp.example.test/calc/", port=9123)
'''


def first_note(tmp_path: Path, *options: str) -> str:
    (tmp_path / "proxied.py").write_text(APP)
    log = tmp_path / "err.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", "proxied.py", "--port", "0", *options],
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                                env=env)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "note:" not in log.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        notes = [line for line in log.read_text().splitlines() if line.startswith("note:")]
        assert notes, log.read_text()
        return notes[0]
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_apps_proxy_arguments_are_named_with_the_options_that_give_them(tmp_path: Path) -> None:
    note = first_note(tmp_path)
    assert note.startswith("note: proxied.py passes path_prefix=, public_url= to server.run() (line 6);"), note
    assert "give --path-prefix, --public-url (or the MCP_* variables they default to)" in note
    assert "port=" not in note  # the banner shows the port


def test_what_the_command_line_gives_is_not_named(tmp_path: Path) -> None:
    note = first_note(tmp_path, "--path-prefix", "/calc")
    assert "passes public_url= to server.run()" in note
    assert "path_prefix" not in note
