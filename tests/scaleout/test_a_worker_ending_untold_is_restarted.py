"""trial44 T44-7: a ``--workers`` worker whose tool called ``os._exit(0)`` was taken as one that stopped when told:
"exited with status 0; not restarted (1 of 2 left)", and a second such call ended the whole server ("every worker
stopped"). Nothing had told it to stop: a worker is now started again whenever it ends without having obeyed a stop
signal, with status 0 too, as a crashed one is; told to stop (SIGTERM to it), it is not."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import httpx2 as httpx
import pytest
import wire
from cluster import Server, listeners
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = Path(__file__).with_name("stops_app.py")
UNTOLD = "exited with status 0 without being told to stop; "


def test_a_worker_exiting_with_status_0_untold_is_restarted_twice_and_the_server_serves_on(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=APP)
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        session = wire.initialize(server.url)
        for ended in (1, 2):
            with pytest.raises(httpx.HTTPError):  # (the worker serving the call is gone: no answer)
                wire.call(server.url, session, "tools/call", {"name": "leave", "arguments": {"code": 0}})
            wait_until(lambda n=ended: server.text().count(UNTOLD) == n, f"the server says worker end {ended}", 30)
            wait_until(lambda: listeners(port) == 2, "two workers listen again", 30)
        text = server.text()
        assert server.proc.poll() is None, text
        assert "not restarted" not in text, text
        assert "every worker stopped" not in text, text
        for line in (line for line in text.splitlines() if UNTOLD in line):
            assert line.endswith(("; restarted", "restarting in 0.5 s")), line

        os.kill(server.proc.pid, signal.SIGTERM)  # told: the workers stop and the server exits with status 0
        assert server.proc.wait(30) == 0, server.report()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)
