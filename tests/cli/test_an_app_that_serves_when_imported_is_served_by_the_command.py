"""An app file that calls ``server.run()`` (or ``start()``) at import, not under ``if __name__ ==
"__main__":``, is still served by ``nanohubmcp run`` / described by ``server-json``: the call is skipped
with one line saying that its arguments do not apply and how to fix the file. Found by a fresh-user
trial: ``run`` served on the file's port (``--port`` ignored) and hung, then served again after Ctrl-C;
``server-json`` never wrote its document. An app whose server is not called ``server`` is told the name
of the one it has."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from support import stdio_call

TOOL = '''\
from nanohubmcp import MCPServer

server = MCPServer("guardless")


@server.tool()
def add(a: int, b: int) -> int:
    """a + b."""
    return a + b


'''
NOTE = ("calls server.{}() when imported; this command skips that call and its arguments (its own options "
        "apply): put it under `if __name__ == \"__main__\":`, where `python guardless.py` still runs it\n")


def nanohubmcp(*arguments: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)  # fmt: skip


@pytest.mark.parametrize("call", ["server.run(port=0)", "server.start(port=0)\nprint('started')"])
def test_server_json_describes_an_app_that_serves_at_import(tmp_path: Path, call: str) -> None:
    (tmp_path / "guardless.py").write_text(TOOL + call + "\n")
    done = nanohubmcp("server-json", "guardless.py", cwd=tmp_path, timeout=30)  # it hung before
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"] == "guardless"
    verb = call.split("(")[0].split(".")[1]
    # One line that does not claim a command which only reads the file serves it (it said "nanohubmcp serves
    # the server itself" after server-json too; trial12).
    assert f"note: guardless.py {NOTE.format(verb)}" in done.stderr
    assert "serves the server" not in done.stderr
    assert "listening on" not in done.stdout + done.stderr


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_run_serves_an_app_that_calls_run_at_import(tmp_path: Path) -> None:
    (tmp_path / "guardless.py").write_text(TOOL + "server.run(port=0)\n")
    arguments = ["-m", "nanohubmcp", "run", "guardless.py", "--transport", "stdio"]
    with anyio.fail_after(30):  # before, the import served HTTP for ever and stdio never answered
        result, stderr = await stdio_call(arguments, "add", {"a": 2, "b": 3}, cwd=tmp_path)
    assert result.content[0].text == "5"
    assert NOTE.format("run") in stderr
    assert "listening on" not in stderr


def test_an_app_without_server_is_told_the_name_of_the_mcp_server_it_has(tmp_path: Path) -> None:
    (tmp_path / "named.py").write_text("from nanohubmcp import MCPServer\n\napp = MCPServer('named')\n")
    done = nanohubmcp("run", "named.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == ("nanohubmcp run: error: named.py defines no module-level `server`; it has an MCPServer "
                           "named `app`: name it server (server = app)\n")


def test_outside_the_command_run_and_start_serve_as_before(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text(TOOL + "server.start(port=0)\nprint('serving', server.running)\nserver.stop()\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "serving True" in done.stdout
