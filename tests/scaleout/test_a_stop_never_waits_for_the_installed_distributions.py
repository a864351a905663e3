"""A server's stop writes the provenance records still pending at once, without waiting for the installed
distributions' table, and so never holds its event loop for it.

A record lists the packages its tool's module uses by the table of installed distributions, read in the background
from the first call (1-2 s; far longer on a hub's NFS home; a worker of ``--workers`` reads it again after its fork).
The stop (``core.close()``, on the event loop) wrote the pending records, and so waited for that read, up to a minute:
a second into it the exit watch said "the event loop does not answer (an async tool blocking it?)", and a read longer
than the exit grace had the worker ended by its watchdog ("still running 10 s after SIGTERM", status 1). Now the
stop ends that wait: the records it writes say ``packages_complete: false`` (looked up by import name).

The slow read is real: a ``sys.path`` entry of many distributions sharing one import name (each file of each is read
to tell them apart), seconds of reading in every process that reads the table.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

import httpx
import pytest
from cluster import Server, group_members, listeners
from redis_server import RedisServer, free_port, listening
from slow_site import slow_site
from support import wait_until

from nanohubmcp.server.provenance.records import ProvenanceStore

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

STOPPED_WITHIN = 6.0
"""Seconds from SIGTERM to the server's exit at most: well within the exit grace (10 s), as the stop without the
table's read takes (~1 s)."""

APP = """
import os

from nanohubmcp import MCPServer

server = MCPServer("distributions")


@server.tool()
def where() -> int:
    '''The process serving the call.'''
    return os.getpid()
"""


def stop_after_a_call(tmp_path: Path, state_url: str, workers: int) -> None:
    app = tmp_path / "distributions_app.py"
    app.write_text(APP)
    state = tmp_path / "state"
    path = slow_site(tmp_path / "site")
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(state), "MCP_TOKEN": "", "PYTHONPATH": path}
    port = free_port()
    server = Server(tmp_path, port, state_url, workers=workers, env=env, access_log=False, app=app)
    proc = server.proc
    try:
        wait_until(lambda: listening(port) and listeners(port) == workers, "every worker listens", 120)
        answer = httpx.post(f"http://127.0.0.1:{port}/tools/where", json={}, timeout=30)
        assert answer.status_code == 200, answer.text
        found = re.match(r"<nanohubmcp://provenance/([^>]+)>", answer.headers["link"])
        assert found, answer.headers["link"]
        proc.send_signal(signal.SIGTERM)  # the record is still pending: its writer waits for the table
        sent = time.monotonic()
        code = proc.wait(60)
        took = time.monotonic() - sent
        text = server.log.read_text(errors="replace")

        assert "does not answer" not in text, text
        assert "still running" not in text, text
        assert code == 0, f"exit status {code}:\n{text}"
        assert took < STOPPED_WITHIN, f"the stop took {took:.1f} s:\n{text}"
        wait_until(lambda: not group_members(proc.pid), "the workers are gone too", 10)
        assert "Traceback" not in text, text
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait(10)
    records = ProvenanceStore(3600, lambda: str(state))
    try:
        record = records.find(found.group(1))  # written by the stop, without the table: it says so
    finally:
        records.close()
    assert record is not None
    assert record["tool"] == "where"
    assert record["packages_complete"] is False


def test_a_workers_stop_writes_its_records_without_waiting_for_the_distributions(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    stop_after_a_call(tmp_path, redis_server.url, workers=2)


def test_a_single_processs_stop_writes_its_records_without_waiting_for_the_distributions(tmp_path: Path) -> None:
    stop_after_a_call(tmp_path, f"sqlite:///{tmp_path / 'state'}", workers=1)
