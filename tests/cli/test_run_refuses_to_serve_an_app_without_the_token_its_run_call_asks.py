"""trial75 F13: ``nanohubmcp run app.py`` (and ``start_mcp --app app.py``) serve the app's ``server`` without
making its ``if __name__ == "__main__": server.run(token="...")`` call, and served every tool to whoever reached
the port, the dropped token named only in a note among the start-up lines. A token that call asks for now makes
the server require one: with none given (no ``--token-file``, ``--token``, ``$MCP_TOKEN``) the command refuses
in one line, exit status 2, before anything listens; given one, the app serves with exactly that one. The other
arguments it drops keep their note; ``token=""`` (no authorization) asks for none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

APP = '''\
from nanohubmcp import MCPServer

server = MCPServer("guarded")


@server.tool()
def a() -> int:
    """One."""
    return 1


if __name__ == "__main__":
    server.run(port=9000, token={token!r}, path_prefix="/p")
'''
REFUSAL = ("this server requires a bearer token, as guarded.py's server.run(token=...) on line 13 does, a call this "
           "command does not make: set MCP_TOKEN to a token of your choice (its clients send it), or pass "
           "--token-file PATH (a file only you can read)")


def start(tmp_path: Path, command: list[str], token: str = "x") -> tuple[subprocess.Popen[bytes], Path]:
    (tmp_path / "guarded.py").write_text(APP.format(token=token))
    log = tmp_path / "err.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    with log.open("wb") as err, (tmp_path / "out.log").open("wb") as out:
        proc = subprocess.Popen([*command, "--port", "0"], cwd=tmp_path, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env)
    return proc, log


def listening(proc: subprocess.Popen[bytes], log: Path) -> str | None:
    """The base URL once the server listens (its banner, on stdout), or None when the process ended first."""
    deadline = time.monotonic() + 90
    while proc.poll() is None and time.monotonic() < deadline:
        for line in (log.parent / "out.log").read_text().splitlines():
            if "Direct tool calls:" in line:
                return line.split()[-1].removesuffix("tools/<name>")
        time.sleep(0.05)
    assert proc.poll() is not None, log.read_text()
    return None


def call_status(base: str, token: str | None = None) -> int:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    request = urllib.request.Request(f"{base}tools/a", data=json.dumps({}).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


RUN = [sys.executable, "-m", "nanohubmcp", "run", "guarded.py"]
START_MCP = [sys.executable, "-m", "nanohubmcp.nanohub.launcher", "--app", "guarded.py", "--host", "127.0.0.1"]


@pytest.mark.parametrize(("command", "prog"), [(RUN, "nanohubmcp run"), (START_MCP, "start_mcp")],
                         ids=["run", "start_mcp"])
def test_with_no_token_given_the_command_refuses_in_one_line(tmp_path: Path, command: list[str], prog: str) -> None:
    proc, log = start(tmp_path, command)
    try:
        base = listening(proc, log)
        assert base is None, f"served {call_status(base)} with no token: {log.read_text()}"
    finally:
        proc.kill()
        proc.wait(20)
    assert proc.returncode == 2, log.read_text()
    errors = [line for line in log.read_text().splitlines() if "error" in line]
    assert errors == [f"{prog}: error: {REFUSAL}"], log.read_text()
    notes = [line for line in log.read_text().splitlines() if "note: guarded.py" in line]
    assert len(notes) == 1, log.read_text()
    assert "path_prefix=" in notes[0], notes  # the other arguments it drops keep their note
    assert "token=" not in notes[0], notes


def test_given_a_token_file_it_serves_with_that_token_only(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("file-SECRET-75\n")
    secret.chmod(0o600)
    proc, log = start(tmp_path, [*RUN, "--token-file", str(secret)])
    try:
        base = listening(proc, log)
        assert base is not None, log.read_text()
        assert call_status(base) == 401
        assert call_status(base, "x") == 401  # the file's own token is not the one served with
        assert call_status(base, "file-SECRET-75") == 200
    finally:
        proc.terminate()
        proc.wait(20)


def test_an_empty_token_asks_for_none(tmp_path: Path) -> None:
    proc, log = start(tmp_path, RUN, token="")
    try:
        base = listening(proc, log)
        assert base is not None, log.read_text()
        assert call_status(base) == 200
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.parametrize(("value", "asks"), [
    ('"x"', True), ('f"{SECRET}-1"', True), ('os.environ["SECRET"]', True),
    ('""', False), ("None", False), ("args.token", False), ('os.environ.get("SECRET")', False),
])
def test_a_token_counts_when_it_is_one_whatever_runs(tmp_path: Path, value: str, asks: bool) -> None:
    # the examples' own command line passes token=args.token: None without --token-file, which asks for nothing
    from nanohubmcp.nanohub.run_call import asked_token

    app = tmp_path / "app.py"
    app.write_text(f"import os\nserver = None\nif __name__ == '__main__':\n    server.run(token={value})\n")
    found = asked_token(app, environ={})
    assert (found.line if found else None) == (4 if asks else None)
