"""``nanohubmcp run APP`` and ``start_mcp --app APP`` serve the app's ``server`` themselves and never make its
``server.run(...)`` call, so ``max_request_bytes=`` written there (an exported notebook's
``%config NanohubMCP.max_request_bytes``) did not apply, and nothing said so: ``run``'s note named only the
proxy keywords, ``start_mcp`` said nothing. Both now name every keyword they leave out, and take
``--max-request-bytes`` (and the other limits) to give them (trial30 T14)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from nanohub_standins import GOOD_APP, Hub, Launch

pytestmark = pytest.mark.slow

APP = GOOD_APP + '''

if __name__ == "__main__":
    server.run(port=9123, path_prefix="/calc", max_request_bytes=2048, max_unsent_bytes=1 << 20, quiet=True)
'''
Start = Callable[..., Launch]


def big_post(base: str) -> tuple[int, str]:
    """A 3 KB body to the REST route: (status, body)."""
    request = urllib.request.Request(base + "tools/add", data=json.dumps({"a": 1, "b": 2, "pad": "x" * 3000}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@contextmanager
def nanohubmcp_run(app: Path, *options: str) -> Iterator[tuple[str, str]]:
    """``nanohubmcp run APP --port 0 OPTIONS``: (its base URL, its stderr so far) once it listens."""
    log = app.parent / "run.err"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", "0", *options],
                                cwd=app.parent, stdout=err, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env)  # fmt: skip
    try:
        found = None
        deadline = time.monotonic() + 60
        while found is None and proc.poll() is None and time.monotonic() < deadline:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", log.read_text())
            time.sleep(0.05)
        assert found, log.read_text()
        yield f"http://127.0.0.1:{found[1]}/", log.read_text()
    finally:
        proc.terminate()
        proc.wait(20)


def test_nanohubmcp_run_names_every_keyword_it_leaves_out_and_takes_the_limits(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with nanohubmcp_run(app) as (base, said):
        note = next(line for line in said.splitlines() if line.startswith("note:"))
        assert note.startswith("note: app.py passes path_prefix=, max_request_bytes=, max_unsent_bytes= to "
                               "server.run() (line 13); nanohubmcp run serves the server itself"), note
        assert "give --path-prefix, --max-request-bytes, --max-unsent-bytes (or the MCP_* variables" in note
        assert "quiet" not in note
        assert "port=" not in note
        assert big_post(base + "calc/")[0] != 413  # not applied: the note said so
    with nanohubmcp_run(app, "--path-prefix", "/calc", "--max-request-bytes", "2048",
                        "--max-unsent-bytes", "1048576") as (base, said):
        assert "note:" not in said  # the command line gives every one
        status, body = big_post(base + "calc/")
        assert status == 413, body
        assert "max_request_bytes" in body


def test_start_mcp_names_them_and_takes_the_limits(hub: Hub, launch: Start) -> None:
    app = hub.app("app.py", APP)
    run = launch(["--app", str(app), "--port", "0"], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert ("start_mcp: note: app.py passes path_prefix=, max_request_bytes=, max_unsent_bytes= to server.run() "
            "(line 13); start_mcp serves the server itself and does not make that call: give --path-prefix, "
            "--max-request-bytes, --max-unsent-bytes (or the MCP_* variables they default to) for them to apply"
            ) in run.stderr
    run.stop()

    run = launch(["--app", str(app), "--port", "0", "--max-request-bytes", "2048", "--path-prefix", "/calc",
                  "--max-unsent-bytes", "1048576"], hub.env(session=False))
    assert run.wait_for("MCP Server ready!"), run.stderr
    assert "note:" not in run.stderr
    base = re.search(r"MCP Server ready! Access it at: (\S+)", run.stdout)
    assert base, run.stdout
    status, body = big_post(base[1])
    assert status == 413, body
    assert "max_request_bytes" in body


def test_every_limit_of_run_has_an_option() -> None:
    import inspect

    from nanohubmcp import MCPServer
    from nanohubmcp.transports.limit_option import LIMIT_OPTIONS

    limits = {name for name in inspect.signature(MCPServer.run).parameters if name.startswith("max_")}
    assert limits == set(LIMIT_OPTIONS)


def test_a_limit_that_is_not_a_byte_count_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--max-request-bytes", "0"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--max-request-bytes must be at least 1024, not 0" in done.stderr
