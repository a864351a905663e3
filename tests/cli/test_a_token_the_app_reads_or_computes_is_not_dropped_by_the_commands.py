"""trial79 F6: ``server.run(token=get_token())``, ``token=os.environ.get("MY_TOK")`` and ``os.environ.get("MY_TOK",
"fallback")`` were recognised by neither ``nanohubmcp run`` nor ``start_mcp --app`` (which serve the file's
``server`` without making that call): a note, then every tool served with no token; ``server-json`` declared no
``Authorization``. An environment read (``os.environ.get``, ``os.getenv``, ``os.environ[...]``) is read in the
serving process, asking for a token when it gives one; any other value the commands cannot know fails closed:
exit status 2, one line saying how to give the token. ``server-json`` declares the header for either."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import AskedToken, asked_token
from tests.support import bearer_status

APP = '''\
import os

from nanohubmcp import MCPServer

server = MCPServer("tok")


def get_token():
    return "from-func-123"


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    server.run(port=0, token={token})
'''
RUN = [sys.executable, "-u", "-m", "nanohubmcp", "run", "app.py", "--host", "127.0.0.1", "--port", "0"]
START_MCP = [sys.executable, "-u", "-m", "nanohubmcp.nanohub.launcher", "--app", "app.py", "--host", "127.0.0.1",
             "--port", "0"]


Served = tuple[int | None, str, str | None]
"""Its exit status (None while it serves), what it wrote, its /mcp URL when it serves."""


@contextlib.contextmanager
def served(tmp_path: Path, token: str, command: list[str], **environ: str) -> Iterator[Served]:
    """Start ``command`` on an app passing ``token=<token>``: (its exit status or None while it serves, what it
    wrote, its /mcp URL when it serves). A serving one is killed afterwards."""
    (tmp_path / "app.py").write_text(APP.format(token=token))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_") and k != "MY_TOK"} | environ
    log = tmp_path / "out.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 90
        while process.poll() is None and "Direct tool calls:" not in log.read_text(errors="replace"):
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        text = log.read_text(errors="replace")
        urls = [line.split()[-1] for line in text.splitlines() if "Direct tool calls:" in line]
        yield process.poll(), text, urls[0].replace("tools/<name>", "mcp") if urls else None
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


@pytest.mark.parametrize(("token", "environ", "found"), [
    ("get_token()", {}, AskedToken(19, known=False)),
    ("os.environ.get('MY_TOK')", {"MY_TOK": "zz"}, AskedToken(19, known=True)),
    ("os.environ.get('MY_TOK')", {"MY_TOK": ""}, None),  # "": no authorization, as the app's own call
    ("os.environ.get('MY_TOK')", {}, None),  # None: run()'s default ($MCP_TOKEN), as the app's own call
    ("os.environ.get('MY_TOK', 'fallback-token')", {}, AskedToken(19, known=True)),
    ("os.environ.get('MY_TOK', default=get_token())", {}, AskedToken(19, known=False)),
    ("os.getenv('MY_TOK', 'fallback-token')", {}, AskedToken(19, known=True)),
    ("os.getenv('MY_TOK')", {"MY_TOK": "zz"}, AskedToken(19, known=True)),
    ("os.environ['MY_TOK']", {}, AskedToken(19, known=True)),
    ("os.environ.get(NAME)", {}, AskedToken(19, known=False)),
    ("args.token", {}, None),  # the script's own --token-file: the commands' own options give it (a note)
    ("None", {}, None),
])
def test_each_form_is_read_as_the_serving_process_would(
    tmp_path: Path, token: str, environ: dict[str, str], found: AskedToken | None
) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP.format(token=token))
    assert asked_token(app, environ) == found
    if token not in ("args.token", "None"):  # server-json: whatever the serving process's environment holds
        assert asked_token(app, None) is not None


@pytest.mark.parametrize("command", [RUN, START_MCP], ids=["run", "start_mcp"])
@pytest.mark.parametrize(("token", "environ"), [
    ("get_token()", {}),
    ("os.environ.get('MY_TOK')", {"MY_TOK": "zz"}),
    ("os.environ.get('MY_TOK', 'fallback-token')", {}),
])
def test_with_no_token_given_the_commands_refuse_in_one_line(
    tmp_path: Path, command: list[str], token: str, environ: dict[str, str]
) -> None:
    with served(tmp_path, token, command, **environ) as (status, output, url):
        assert url is None, f"served {bearer_status(url, None)} with no token:\n{output}"
    assert status == 2, output
    errors = [line for line in output.splitlines() if "error:" in line]
    assert len(errors) == 1, output
    assert "requires a bearer token, as app.py's server.run(token=...) on line 19 " in errors[0]
    assert "MCP_TOKEN" in errors[0]
    assert "--token-file PATH" in errors[0]
    if token == "get_token()":
        assert "server.require_token() at module level" in errors[0]


def test_given_a_token_it_serves_requiring_that_one(tmp_path: Path) -> None:
    with served(tmp_path, "get_token()", RUN, MCP_TOKEN="given-79") as (_, output, url):
        assert url is not None, output
        assert bearer_status(url, None) == 401
        assert bearer_status(url, "from-func-123") == 401  # the file's own value is never used
        assert bearer_status(url, "given-79") != 401


def test_an_environment_read_giving_none_serves_as_the_apps_own_call_would(tmp_path: Path) -> None:
    with served(tmp_path, "os.environ.get('MY_TOK')", RUN) as (_, output, url):
        assert url is not None, output
        assert bearer_status(url, None) != 401
    assert "note: app.py passes token= to server.run() (line 19)" in output


@pytest.mark.parametrize("token", ["get_token()", "os.environ.get('MY_TOK')"])
def test_server_json_declares_the_header_for_any_token_it_sees(tmp_path: Path, token: str) -> None:
    (tmp_path / "app.py").write_text(APP.format(token=token))
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "server-json", "app.py", "--public-url", "https://tools.example.org/"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if not k.startswith("MCP_") and k not in ("MY_TOK", "SESSION")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    remotes = json.loads(done.stdout)["remotes"]
    assert remotes
    assert all(header["name"] == "Authorization" for remote in remotes for header in remote["headers"]), remotes
    assert all(remote["headers"] for remote in remotes), remotes
