"""A Redis outage loses no job (trial7 F1, F2).

Three ``nanohubmcp run`` processes share a real redis-server that keeps its data on disk (an
append-only file synced at every write): it is killed and started again on the same port while a
job runs on one process. A job that reports progress through the outage runs on and ends
``done`` (its progress is dropped, never raised into the tool). A job that ends during the
outage keeps its result: the process that ran it answers polls from it meanwhile, and once Redis
is back every process reads it ``done`` with its result. A REST poll that needs Redis during the
outage gets 503 with ``Retry-After`` — never the 404 that means "no such job".

No process dies of the outage. CI on 4c7dead saw one refuse the final poll: it listened (the
cluster took it for up) while its start still had to read the ``requestState`` key from Redis, and
the outage came then; it exited ("cannot reach the state store"). A process now reads what its
start needs from Redis before it binds its port: once it listens, an outage is 503 until Redis is
back. A poll refused names the process's exit code and its log's last lines.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster import Cluster, Server
from nginx_weber import find_nginx
from redis_server import RedisServer, connected_to, find_redis, free_port, listening
from support import installed, wait_until

pytestmark = pytest.mark.timeout(150)
NONE_SUCH = "none-such".ljust(32, "_")
"""A job id of the form the server makes (one of another form is not found without asking Redis)."""


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[tuple[RedisServer, Cluster]]:
    """A redis-server on disk and three processes sharing it (fresh for each test)."""
    store = RedisServer(installed(find_redis(), "redis-server"), tmp_path, persistent=True).start()
    try:
        nodes = Cluster(installed(find_nginx(), "nginx"), tmp_path, store.url)
        try:
            yield store, nodes
        finally:
            nodes.close()
    finally:
        store.stop()


def rest(server: Server, tool: str, arguments: dict[str, Any]) -> httpx.Response:
    """``POST /tools/<tool>`` on one process, bypassing nginx; a refused connection fails the test
    with the process's exit code and the end of its log."""
    try:
        return httpx.post(server.url.removesuffix("/mcp") + "/tools/" + tool, json=arguments, timeout=20)
    except httpx.ConnectError as exc:
        raise AssertionError(f"{tool}: connection refused ({exc}): {server.report()}") from None


def none_died(servers: list[Server]) -> None:
    """Every process still runs, and none logged a traceback."""
    for server in servers:
        assert server.proc.poll() is None, f"a process died: {server.report()}"
        assert "Traceback" not in server.text(), server.report()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 40) -> None:
    wait_until(condition, what, timeout)


def poll(server: Server, job_id: str) -> tuple[int, dict[str, Any]]:
    reply = rest(server, "get_job_result", {"job_id": job_id})
    return reply.status_code, reply.json()


def start_job(nodes: Cluster, marker: Path) -> str:
    """Start ``until_file`` on the first process; its id once another process reads it running."""
    reply = rest(nodes.servers[0], "until_file", {"path": str(marker)})
    assert reply.status_code == 202, reply.text
    job_id: str = reply.json()["job_id"]
    wait_for(lambda: poll(nodes.servers[1], job_id)[1].get("status") == "running", "another process reads it running")
    return job_id


def outage_seen(server: Server, job_id: str, before: int) -> Callable[[], bool]:
    """True once ``server``'s log names ``job_id`` more often than ``before`` times (the job met
    the outage: its progress could not be stored — or, before the fix, it died of it)."""
    return lambda: server.text().count(job_id) > before


def done_everywhere(nodes: Cluster, job_id: str, marker: Path) -> Callable[[], bool]:
    def check() -> bool:
        answers = [poll(server, job_id) for server in nodes.servers]
        return all(status == 200 and body.get("status") == "done" and (body.get("result") or {}).get("found")
                   == str(marker) for status, body in answers)

    return check


def test_a_job_reporting_progress_through_an_outage_finishes(kept: tuple[RedisServer, Cluster],
                                                             tmp_path: Path) -> None:
    store, nodes = kept
    marker = tmp_path / "go-1"
    job_id = start_job(nodes, marker)
    runner = nodes.servers[0]
    before = runner.text().count(job_id)
    store.stop()
    wait_for(outage_seen(runner, job_id, before), "the job's progress meets the outage")
    store.start()  # the same port, the data kept
    wait_for(lambda: poll(nodes.servers[1], job_id)[0] == 200, "the processes reach Redis again")
    marker.write_text("go")
    wait_for(done_everywhere(nodes, job_id, marker), "every process reads the job done with its result")
    none_died(nodes.servers)
    assert runner.text().count(f"could not store the progress of job {job_id}") == 1, "logged once per job"


def test_a_job_ending_during_an_outage_keeps_its_result_on_every_process(kept: tuple[RedisServer, Cluster],
                                                                        tmp_path: Path) -> None:
    store, nodes = kept
    marker = tmp_path / "go-2"
    job_id = start_job(nodes, marker)
    runner, other = nodes.servers[0], nodes.servers[1]
    before = runner.text().count(job_id)
    store.stop()
    wait_for(outage_seen(runner, job_id, before), "the job's progress meets the outage")
    marker.write_text("go")
    # The process holding the result answers from it while Redis is down.
    wait_for(lambda: poll(runner, job_id)[1].get("status") != "running", "the job ends")
    status, body = poll(runner, job_id)
    assert (status, body.get("status"), (body.get("result") or {}).get("found")) == (200, "done", str(marker)), body
    # Another process cannot read the job now: 503 with Retry-After, not "no such job".
    reply = rest(other, "get_job_result", {"job_id": job_id})
    assert reply.status_code == 503, reply.text
    assert reply.headers.get("Retry-After") == "5"
    assert "unreachable" in reply.json()["error"]
    store.start()
    wait_for(done_everywhere(nodes, job_id, marker), "every process reads the job done with its result")
    none_died(nodes.servers)


def test_a_rest_poll_during_an_outage_is_503_with_retry_after(kept: tuple[RedisServer, Cluster]) -> None:
    store, nodes = kept
    reply = rest(nodes.servers[0], "slow_square", {"x": 3})
    assert reply.status_code == 202, reply.text
    job_id = reply.json()["job_id"]
    wait_for(lambda: poll(nodes.servers[1], job_id)[1].get("status") == "done", "the job is done")
    store.stop()
    reply = rest(nodes.servers[1], "get_job_result", {"job_id": job_id})
    assert (reply.status_code, reply.headers.get("Retry-After")) == (503, "5"), reply.text
    assert reply.json() == {"error": "The server's shared state store is unreachable; retry shortly"}
    store.start()
    wait_for(lambda: poll(nodes.servers[1], job_id)[0] == 200, "the process reaches Redis again")
    assert poll(nodes.servers[1], job_id)[1] | {"job_id": job_id} == {"status": "done", "job_id": job_id, "result": 9}
    none_died(nodes.servers)


def test_a_process_listens_only_once_its_start_waits_on_redis_no_more(redis_server: RedisServer,
                                                                       tmp_path: Path) -> None:
    """CI on 4c7dead: a process listened while its start still read the ``requestState`` key from
    Redis; Redis went away then and the process exited, though the cluster had taken it for up. Here
    Redis answers nothing (stopped with SIGSTOP) while a process starts: it must not listen before
    Redis answers; once it listens, Redis going away at once costs it nothing."""
    env = {**os.environ, "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    env.pop("NANOHUBMCP_STATE_URL", None)
    redis_server.freeze()
    server = Server(tmp_path, free_port(), redis_server.url, env=env)
    try:
        wait_for(lambda: connected_to(server.proc.pid, redis_server.port) or server.proc.poll() is not None,
                 "the starting process waits on Redis", timeout=60)
        assert server.proc.poll() is None, server.report()
        assert not listening(server.port), f"it listens while its start waits on Redis: {server.report()}"
        redis_server.thaw()
        server.wait_listening()
        redis_server.stop()  # the moment the CI run's outage came
        wait_for(lambda: "unreachable" in server.text(), "the process meets the outage")
        reply = rest(server, "get_job_result", {"job_id": NONE_SUCH})
        assert (reply.status_code, reply.headers.get("Retry-After")) == (503, "5"), reply.text
        redis_server.start()
        wait_for(lambda: rest(server, "get_job_result", {"job_id": NONE_SUCH}).status_code == 404,
                 "the process reaches Redis again")
        none_died([server])
    finally:
        redis_server.thaw()
        server.stop()
