"""trial79 F5: a tool that echoes its argument in an exception (``raise ValueError(f"no material named {name}")``)
wrote the client's text raw to the operator's terminal through the server's log: ESC, OSC and BEL (a terminal's
title set, its screen cleared), a bidirectional override, and a newline starting a line of the client's own. Every
handler nanohubmcp installs (``nanohubmcp run``'s and ``server.run()``'s where the application configured no
logging, over HTTP and stdio, and the start_mcp child's) writes those characters as escapes; a traceback keeps its
own lines."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.support import (
    ScriptServer,
    app_server,
    rpc_message,
    run_command,
    script_server,
    start_mcp_server,
    tool_call_message,
    wait_until,
)

APP = '''\
from nanohubmcp import MCPServer

server = MCPServer("esc")


@server.tool()
def lookup(name: str) -> str:
    """Look up a material by name."""
    raise ValueError(f"no material named {name}")


if __name__ == "__main__":
    server.run(host="127.0.0.1", port=0)
'''
SENT = "Si\x1b]0;pwned\x07\x1b[2J\nforged line\u202e\x9b"
WRITTEN = "no material named Si\\u001b]0;pwned\\u0007\\u001b[2J\\u000aforged line\\u202e\\u009b"


def served_log(log: str) -> None:
    assert not [c for c in log if c in "\x1b\x07\u202e\x9b"], log
    assert not [line for line in log.splitlines() if line.startswith("forged")], log
    assert "tool 'lookup' failed (request id rest-" in log or "tool 'lookup' failed" in log, log
    assert f"ValueError: {WRITTEN}" in log, log
    assert "Traceback (most recent call last):" in log.splitlines(), log  # the traceback's own lines kept
    assert '    raise ValueError(f"no material named {name}")' in log.splitlines(), log


def post(url: str) -> None:
    request = urllib.request.Request(url + "tools/lookup", json.dumps({"name": SENT}).encode(),
                                     {"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=30).close()
    except urllib.error.HTTPError as answered:
        answered.close()


def nanohubmcp_run(app: Path, log: Path) -> AbstractContextManager[ScriptServer]:
    return app_server(app, log=log)


def start_mcp(app: Path, log: Path) -> AbstractContextManager[ScriptServer]:
    return start_mcp_server(app, log=log)


def script(app: Path, log: Path) -> AbstractContextManager[ScriptServer]:
    return script_server(APP, directory=app.parent)


@pytest.mark.parametrize("serve", [nanohubmcp_run, start_mcp, script], ids=["run", "start_mcp", "server.run"])
def test_over_http_the_log_writes_the_clients_escapes_as_text(
    tmp_path: Path, serve: Callable[[Path, Path], AbstractContextManager[ScriptServer]]
) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with serve(app, tmp_path / "server.log") as served:
        post(served.url)
        wait_until(lambda: "ValueError: no material" in served.output.rpartition("Traceback")[2], "the traceback")
        served_log(served.output)


def test_over_stdio_the_log_writes_the_clients_escapes_as_text(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    messages = [rpc_message("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "1"}}),
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                tool_call_message("lookup", {"name": SENT}, request_id=2)]
    done = subprocess.run([*run_command(app)], input="".join(json.dumps(m) + "\n" for m in messages),
                          capture_output=True, text=True, timeout=90, cwd=tmp_path, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("result", {}).get("isError") for a in answers if a.get("id") == 2] == [True], done.stderr
    served_log(done.stderr)
