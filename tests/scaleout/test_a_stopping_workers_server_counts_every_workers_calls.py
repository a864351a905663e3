"""trial44 T44-6: at Ctrl-C, a ``--workers`` server said "waiting for N running tool call(s) of the workers"
as soon as the first worker had counted the calls it still ran once its drain was over: N missed the calls of
a worker whose drain ended later (2 or 1 for 3 running). Now the parent says the line once every worker still
running has counted, with the sum and how many workers run them. (review r27 #9: each worker counts the tool
calls it runs as its drain begins, the drain now lasting most of the exit grace: the ``stubborn`` call, cut off
only at the drain's end, is counted too.)

T44-5 (fixed by the stop's SIGKILL, bfbd81a): a second Ctrl-C before that line made the server exit with
status 0 at once, saying nothing, its workers left running the tool code, orphaned, for 10 s. The test holds
that it now kills them, says so and exits with status 1, leaving nothing running."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import wire
from cluster import Server, calls_on_every_worker, calls_running_where, group_members, listeners, took
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = Path(__file__).with_name("stops_app.py")
LINE = re.compile(r"^nanohubmcp: stopped; waiting for (\d+) running tool call\(s\)(?: in (\d+) worker\(s\))? .*"
                  r"- press Ctrl-C again to quit now$", re.M)


@contextlib.contextmanager
def _holding(redis_server: RedisServer, tmp_path: Path,
             *extra_args: str) -> Iterator[tuple[Server, list[wire.Events], dict[str, int]]]:
    """A ``--workers 2`` server (``nanohubmcp run`` with ``extra_args``) whose workers each run calls of ``hold``
    (until the end of the test): the server, the calls (one more may be added) and how many each worker runs, by
    process id."""
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=APP,
                    extra_args=extra_args)
    release = tmp_path / "release"
    calls: list[wire.Events] = []
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        session = wire.initialize(server.url)
        held, where = calls_on_every_worker(server.url, session, "hold", {"path": str(release)})
        calls += held
        yield server, calls, where
    finally:
        release.touch()
        for call in calls:
            call.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)


def test_the_line_counts_the_calls_of_every_worker(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    # (--exit-grace 3: the workers' drains, and so the stubborn call, end 1 s after the signal, not the default's 8 s)
    with _holding(redis_server, tmp_path, "--exit-grace", "3") as (server, calls, where):
        session = wire.initialize(server.url)
        late, _ = calls_running_where(server.url, session, "stubborn", {}, rid=100)  # one more call on one worker
        calls.append(late)

        os.killpg(server.proc.pid, signal.SIGINT)  # Ctrl-C at a terminal: the whole group
        found = wait_until(lambda: LINE.search(server.text()), "the line saying what the server waits for", 30)
        assert (int(found.group(1)), found.group(2)) == (sum(where.values()) + 1, "2"), (found.group(0), where)
        (tmp_path / "release").touch()
        assert server.proc.wait(30) == 0, server.report()
        assert len(LINE.findall(server.text())) == 1, server.text()
        assert "Traceback" not in server.text(), server.text()


def test_a_second_ctrl_c_before_the_line_kills_the_workers_and_says_so(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    with _holding(redis_server, tmp_path) as (server, _, where):
        os.killpg(server.proc.pid, signal.SIGINT)
        wait_until(lambda: took(server.proc.pid, signal.SIGINT), "the parent took the first Ctrl-C", 10)
        os.killpg(server.proc.pid, signal.SIGINT)  # long before the workers' time for answers ran out
        code = server.proc.wait(30)
        text = server.text()

        assert code == 1, f"exit status {code}:\n{text}"
        assert len(LINE.findall(text)) <= 1, text  # (said as the workers' drains begin: it may come before it)
        for pid in where:
            assert f"(pid {pid}) was still stopping at the second SIGINT; killed" in text, text
        assert not group_members(server.proc.pid), f"processes outlived the server:\n{text}"
        assert listeners(server.port) == 0, "a worker still listens on the port"
