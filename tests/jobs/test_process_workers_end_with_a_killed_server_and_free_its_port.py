"""A server killed with ``kill -9`` while a job runs on the ``processes`` executor leaves nothing
behind: its job's process (a forked copy of the server) ends, its port is free, and
a server started again on the same state directory answers the job as stopped.

Found by a new user: the forked workers kept the listening socket and the server's SIGTERM
handler, so a client's request to the dead server's port hung and the restart could not bind.
"""

from __future__ import annotations

import socket
from pathlib import Path

from job_server import ServerProcess, children, wait_until
from support import running

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"


def port_free(port: int) -> bool:
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def test_workers_end_with_a_killed_server_and_its_port_is_free(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state)
    try:
        status, body = first.rest_start("wait_here", {"path": str(tmp_path / "never-created")})
        assert status == 202, body
        job_id = body["job_id"]
        wait_until(lambda: first.rest_poll(job_id)[1]["status"] == "running", "the job to run")
        wait_until(lambda: children(first.proc.pid), "the job's process")  # (no ctx: no manager)
        workers = children(first.proc.pid)
        assert not port_free(first.port)
        first.kill()
        wait_until(lambda: not any(running(pid) for pid in workers), "the workers to end with their server", 20)
        wait_until(lambda: port_free(first.port), "the port to be free", 20)
    finally:
        first.stop()
    again = ServerProcess(state)
    try:
        status, body = again.rest_poll(job_id)
        assert body == {"status": "error", "job_id": job_id, "error": STOPPED}
    finally:
        again.stop()


def test_a_program_a_job_started_ends_with_a_killed_server(tmp_path: Path) -> None:
    # The job's process leads a process group of its own (so that a cancel reaches what it
    # started): it takes that group along when it finds its server gone.
    marker = tmp_path / "program"
    server = ServerProcess(tmp_path / "state")
    try:
        status, body = server.rest_start("run_a_program", {"marker": str(marker)})
        assert status == 202, body
        program = int(wait_until(lambda: marker.exists() and marker.read_text(), "the job's program"))
        server.kill()
        wait_until(lambda: not running(program), "the program to end with the server", 20)
    finally:
        server.stop()
