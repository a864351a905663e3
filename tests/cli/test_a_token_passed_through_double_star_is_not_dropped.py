"""trial80 F4: ``server.run(**{"token": "s3cret"})``, ``server.run(**KW)`` with ``KW = {"token": ...}`` and
``server.run(**SETTINGS)`` (the token read from the environment) got only a note from ``nanohubmcp run`` and
``start_mcp --app``, which then served every tool open; ``server-json`` declared no ``Authorization``. A dict
literal's ``"token"`` is read as the ``token=`` it is; any other ``**`` may pass one, and fails closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import AskedToken, asked_token

APP = '''\
import os

from nanohubmcp import MCPServer

server = MCPServer("tok")
{before}

@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    server.run(port=0, {unpacked})
'''
ENV = {k: v for k, v in os.environ.items() if not k.startswith("MCP_") and k != "MY_TOK"}


@pytest.mark.parametrize(("before", "unpacked", "found"), [
    ("", '**{"token": "s3cret"}', AskedToken(15, known=True)),
    ('KW = {"token": "s3cret"}', "**KW", AskedToken(15, known=True)),
    ('SETTINGS = {"host": "0.0.0.0", "token": os.environ["MY_TOK"]}', "**SETTINGS", AskedToken(15, known=True)),
    ('SETTINGS = dict(token=os.environ.get("MY_TOK", "fallback"))', "**SETTINGS", AskedToken(15, known=True)),
    ('SETTINGS = {"host": "0.0.0.0"}\nSETTINGS["token"] = "s3cret"', "**SETTINGS",
     AskedToken(16, known=False, unpacked=True)),  # changed after it was bound: what it holds is not known
    ("def settings():\n    return {'token': 's3cret'}", "**settings()", AskedToken(16, known=False, unpacked=True)),
    ('KEY = "tok" + "en"', '**{KEY: "s3cret"}', AskedToken(15, known=False, unpacked=True)),
    ("", '**{"host": "0.0.0.0", **{"token": "s3cret"}}', AskedToken(15, known=True)),
    ("", '**{"host": "0.0.0.0", "token": None}', None),
    ('KW = {"host": "0.0.0.0"}', "**KW", None),  # keys all named, none a token
    ("", '**{"token": os.environ.get("MY_TOK")}', None),  # as token=os.environ.get(...), MY_TOK unset
])
def test_what_a_double_star_passes_is_read_or_asks_for_a_token(
    tmp_path: Path, before: str, unpacked: str, found: AskedToken | None
) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP.format(before=before, unpacked=unpacked))
    assert asked_token(app, {}) == found


@pytest.mark.parametrize("command", ["run", "start_mcp"])
def test_an_unknown_double_star_refuses_to_serve_open_in_one_line(tmp_path: Path, command: str) -> None:
    (tmp_path / "app.py").write_text(APP.format(before='KW = {"token": os.environ["MY_TOK"]}\nKW["port"] = 1',
                                                unpacked="**KW"))
    program = ["-m", "nanohubmcp", "run", "app.py"] if command == "run" else [
        "-m", "nanohubmcp.nanohub.launcher", "--app", "app.py"]
    done = subprocess.run([sys.executable, *program, "--host", "127.0.0.1", "--port", "0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL, check=False,
                          env=ENV | {"MY_TOK": "from-env"})
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in (done.stdout + done.stderr).splitlines() if "error:" in line]
    assert len(errors) == 1, done.stdout + done.stderr
    assert "requires a bearer token, as app.py's server.run(**...) on line 16 may" in errors[0]
    assert "# nanohubmcp: own command line" in errors[0]
    assert "--token-file PATH" in errors[0]


def test_server_json_declares_the_header_for_a_token_passed_by_double_star(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP.format(before="", unpacked='**{"token": "s3cret"}'))
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "server-json", "app.py", "--public-url", "https://tools.example.org/"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL, env=ENV, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    remotes = json.loads(done.stdout)["remotes"]
    assert remotes
    assert all(remote["headers"][0]["name"] == "Authorization" for remote in remotes), remotes
