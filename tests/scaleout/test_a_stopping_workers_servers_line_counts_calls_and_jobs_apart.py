"""7456e158 made a single process's stop lines count tool calls and jobs apart (``process_exit.count_running``),
but under ``--workers N`` each worker still told its parent one count, every running function in it: at Ctrl-C
the parent's line named a running ``@async_tool`` job a tool call ("stopped; waiting for 1 running tool call(s) in
1 worker(s) to return"). Now a worker tells its parent its calls and its jobs apart, counted by the same rule, and
the parent's line names them as a single process's does ("1 running job(s)", "1 running tool call(s) and 1
running job(s)"). (At SIGTERM the parent says nothing: test_a_stopping_workers_server_says_once_...)

A real ``nanohubmcp run app.py --workers 2 --exit-grace 3`` over a real redis-server; every wait is for a
condition."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import wire
from cluster import Server, calls_running_where, listeners
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
import os, pathlib, time
from nanohubmcp import Context, MCPServer

server = MCPServer("workers-jobs-close")


@server.tool()
def hold(path: str, ctx: Context) -> str:
    '''A sync call, until the file ``path`` exists (40 s at most).'''
    ctx.report_progress(1, 2, str(os.getpid()))
    deadline = time.monotonic() + 40
    while not pathlib.Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "released"


@server.async_tool()
def stubborn(path: str, marker: str) -> str:
    '''A job on a thread of the worker that never looks whether it was cancelled (until ``path`` exists).'''
    pathlib.Path(marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + 40
    while not pathlib.Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "ok"
"""
LINE = re.compile(r"^nanohubmcp: stopped; waiting for (.*?) to return \(they were told to cancel\).*$", re.M)


@contextlib.contextmanager
def _server(redis_server: RedisServer, tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """A ``--workers 2 --exit-grace 3`` server of :data:`APP` and a session open on it; killed at the end."""
    app = tmp_path / "jobs_app.py"
    app.write_text(APP)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=app,
                    extra_args=("--exit-grace", "3"))
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        yield server, wire.initialize(server.url)
    finally:
        (tmp_path / "release").touch()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)


def _start_job(server: Server, session: str, tmp_path: Path) -> None:
    marker = tmp_path / "job.pid"
    body = wire.tool(server.url, session, "stubborn", {"path": str(tmp_path / "release"), "marker": str(marker)})
    assert "error" not in body, body
    assert not body["result"].get("isError"), body
    wait_until(marker.exists, "the job's function to run", 30)


def _ctrl_c(server: Server) -> str:
    """Ctrl-C at a terminal (SIGINT to the whole group): the parent's line, once the server exited with status 0."""
    os.killpg(server.proc.pid, signal.SIGINT)
    found = wait_until(lambda: LINE.search(server.text()), "the line saying what the server waits for", 30)
    assert server.proc.wait(30) == 0, server.report()
    text = server.text()
    assert len(LINE.findall(text)) == 1, text
    assert "Traceback" not in text, text
    return str(found.group(1))


def test_a_running_job_is_named_a_job_not_a_tool_call(redis_server: RedisServer, tmp_path: Path) -> None:
    with _server(redis_server, tmp_path) as (server, session):
        _start_job(server, session, tmp_path)
        what = _ctrl_c(server)
    assert what == "1 running job(s) in 1 worker(s)", server.text()


def test_a_call_and_a_job_are_named_apart(redis_server: RedisServer, tmp_path: Path) -> None:
    with _server(redis_server, tmp_path) as (server, session):
        _start_job(server, session, tmp_path)
        call, pid = calls_running_where(server.url, session, "hold", {"path": str(tmp_path / "release")})
        try:
            what = _ctrl_c(server)
        finally:
            call.close()
    workers = 1 if pid == (tmp_path / "job.pid").read_text() else 2
    assert what == f"1 running tool call(s) and 1 running job(s) in {workers} worker(s)", server.text()
