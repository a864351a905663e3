"""review r22 L2: a ``--workers`` worker that failed at its start (its Redis gone) was started again at
once, about 4 times a second, with 2 lines on stderr each time. The 1,000 restarts allowed counted over the
server's whole life, so about 4 minutes of Redis outage ended the whole server with a traceback. Now a
worker that keeps failing at its start is started again after a pause that doubles each time. It serves
again once Redis is back. A stop during a pause is taken at once. The server gives up, in one line and
with status 1, only when the starts kept failing for a sustained window.

The real ``nanohubmcp run --workers 2`` on a real redis-server; stopping that Redis makes a worker's start
fail. To keep the tests short, their apps shorten the policy's first pause or its window, or lengthen its pauses
(``nanohubmcp.processes.restarts``' constants, read when the server forks; their defaults are
tests/transports/test_a_worker_failing_at_its_start_is_restarted_by_a_doubling_pause.py's)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

import pytest
import wire
from cluster import Server, group_members, listeners, processes_with
from redis_server import RedisServer, free_port
from support import wait_until

pytestmark = pytest.mark.timeout(150)

APP = """
import os

from nanohubmcp import MCPServer
from nanohubmcp.processes import restarts

for name in ("FIRST_PAUSE_SECONDS", "MAX_PAUSE_SECONDS", "GIVE_UP_SECONDS"):
    if name in os.environ:
        setattr(restarts, name, float(os.environ[name]))

server = MCPServer("backoff")


@server.tool()
def where() -> int:
    \"\"\"The process serving this call.\"\"\"
    return os.getpid()
"""


class _Server(Server):
    """``nanohubmcp run APP --workers 2``, the restart policy's constants set from ``policy``."""

    def __init__(self, tmp_path: Path, state_url: str, **policy: str) -> None:
        app = tmp_path / "backoff_app.py"
        app.write_text(APP)
        env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": "", **policy}
        super().__init__(tmp_path, free_port(), state_url, workers=2, env=env, access_log=False, app=app)
        try:
            wait_until(lambda: listeners(self.port) == 2, "both workers listen", 30)
        except AssertionError:
            self.close()
            raise

    def kill_a_worker(self) -> int:
        """SIGKILL one worker; its slot's number."""
        victim = min(processes_with(1, self.proc.pid))
        os.kill(victim, signal.SIGKILL)
        found = wait_until(lambda: re.search(rf"^nanohubmcp: worker (\d) \(pid {victim}\) killed by SIGKILL",
                                             self.text(), re.M), "the kill is said", 20)
        return int(found.group(1))

    def ends(self, slot: int) -> list[str]:
        """What the parent said after each end of worker ``slot`` (``restarted``, ``restarting in 2 s``, ...)."""
        said = re.findall(rf"^nanohubmcp: worker {slot} \(pid \d+\) [^;]+; (.*)$", self.text(), re.M)
        # (a worker's own line of the store's outage, "...; answering 503 until it is back", is no end: ci39)
        return [end for end in said if not end.startswith("answering 503")]

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(10)


def _pauses(ends: list[str]) -> list[float]:
    return [float(pause) for end in ends for pause in re.findall(r"restarting in ([0-9.]+) s$", end)]


def test_a_worker_failing_at_its_start_is_started_again_ever_more_slowly_then_serves(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    server = _Server(tmp_path, redis_server.url, FIRST_PAUSE_SECONDS="0.25")  # (0.5 by default)
    try:
        redis_server.stop()
        slot = server.kill_a_worker()
        wait_until(lambda: 2.0 in _pauses(server.ends(slot)), "the pause before a restart reaches 2 s", 40)
        ends = server.ends(slot)
        assert _pauses(ends) == [0.25, 0.5, 1.0, 2.0], ends  # one failure more, one pause twice as long
        assert len(ends) <= 6, ends  # (the kill, at most one restart at once, then the four paused ones)
        paused = r"it ended within 10 s of its start \d+ times in a row; restarting in [0-9.]+ s"
        assert all(re.fullmatch(rf"restarted|{paused}", end) for end in ends), ends
        # Each failed start is the worker's, not the command's (trial45 T45-4: "nanohubmcp run: error: ...").
        assert "nanohubmcp run: error" not in server.text(), server.text()
        assert re.search(rf"^nanohubmcp: worker {slot} \(pid \d+\) could not start: cannot reach the state store",
                         server.text(), re.M), server.text()

        redis_server.start()
        wait_until(lambda: listeners(server.port) == 2, "the worker started again serves once Redis is back", 60)
        session = wire.initialize(f"http://127.0.0.1:{server.port}/mcp")
        pids = {wire.tool(f"http://127.0.0.1:{server.port}/mcp", session, "where", {}, rid)["result"]["content"][0]
                ["text"] for rid in range(20)}
        assert len(pids) == 2, pids

        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(30) == 0, server.text()
        assert "Traceback" not in server.text(), server.text()
    finally:
        server.close()


def test_a_stop_during_the_pause_before_a_restart_is_taken_at_once(redis_server: RedisServer, tmp_path: Path) -> None:
    server = _Server(tmp_path, redis_server.url, FIRST_PAUSE_SECONDS="120", MAX_PAUSE_SECONDS="120")
    try:
        redis_server.stop()
        slot = server.kill_a_worker()
        wait_until(lambda: 120.0 in _pauses(server.ends(slot)), "a restart is 120 s away", 30)
        ends = len(server.ends(slot))
        began = time.monotonic()
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(30) == 0, server.text()
        assert time.monotonic() - began < 20, "the stop waited for the pause"
        assert len(server.ends(slot)) == ends, "the worker was started again after the stop"
        assert not group_members(server.proc.pid), server.text()
        assert "Traceback" not in server.text(), server.text()
    finally:
        server.close()


def test_a_worker_whose_starts_keep_failing_ends_the_server_in_one_line(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    server = _Server(tmp_path, redis_server.url, GIVE_UP_SECONDS="3")
    try:
        redis_server.stop()
        slot = server.kill_a_worker()
        code = server.proc.wait(60)
        text = server.text()
        assert code == 1, text
        given_up = [end for end in server.ends(slot) if "giving up" in end]
        assert len(given_up) == 1, text
        assert re.fullmatch(r"it ended within 10 s of its start every time for \d+ s \(\d+ times in a row\); "
                            r"giving up: stopping the server", given_up[0]), given_up
        assert len(server.ends(slot)) <= 7, text  # paused: 0, 0.5, 1, 2 s ... past the 3 s window
        assert not group_members(server.proc.pid), text
        assert "Traceback" not in text, text
    finally:
        server.close()
