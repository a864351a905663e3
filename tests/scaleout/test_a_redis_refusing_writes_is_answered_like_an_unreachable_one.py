"""A Redis that refuses writes is answered like an unreachable one (trial54 N2).

scale-out.md recommends ``maxmemory`` with ``maxmemory-policy noeviction``: a full Redis then answers every write
``OOM command not allowed when used memory > 'maxmemory'``. Before, a ``nanohubmcp run`` process sharing such a
Redis answered a new session's ``initialize`` with a bare 500 and a traceback, a job start with 500 (REST) or
-32603 (MCP), kept ``/readyz`` at 200, logged "heartbeat failed" at every heartbeat, and logged a job ending
meanwhile with an ERROR and a traceback (its end was stored later all the same).

Now every route answers 503 with ``Retry-After`` and a message naming the refusal, ``/readyz`` is 503 while the
store refuses writes and 200 once it takes them, the refusal is said once when it begins and once when it ends, and a
job ending meanwhile is one WARNING, its end stored once writes are taken. A replica's ``READONLY`` is the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from app_processes import base, one_app_process, ready, rest
from cluster import Server
from redis_server import RedisServer, free_port
from support import wait_until
from wire import call, initialize, open_session

pytestmark = pytest.mark.timeout(120)

OOM = "OOM command not allowed when used memory > 'maxmemory'"
REFUSED = f"The server's shared state store refuses writes: {OOM}; retry shortly"
JOB_KEY = "nanohubmcp:scaleout-test:job:{}"


@pytest.fixture
def served(redis_server: RedisServer, tmp_path: Path) -> Iterator[Server]:
    with one_app_process(redis_server.url, tmp_path) as server:
        yield server


def refused_sets(admin: redis.Redis) -> int:
    """How many SETs Redis refused so far (``rejected_calls``: OOM refuses a write before running it)."""
    return int(admin.info("commandstats").get("cmdstat_set", {}).get("rejected_calls", 0))


def stored_status(admin: redis.Redis, job_id: str) -> str | None:
    raw = admin.hget(JOB_KEY.format(job_id), "status")
    return None if raw is None else str(json.loads(raw))


def test_a_redis_refusing_writes_is_503_everywhere_and_said_once(
    redis_server: RedisServer, served: Server, tmp_path: Path
) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    session = initialize(served.url)
    marker = tmp_path / "go"
    started = rest(served, "until_file", {"path": str(marker)})
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    wait_until(lambda: stored_status(admin, job_id) == "working", "the job runs")

    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", "1")
    try:
        # A new session: 503 with Retry-After, a JSON-RPC -32000 naming the refusal (was: 500, a traceback).
        opened = open_session(served.url)
        assert (opened.status_code, opened.headers.get("Retry-After")) == (503, "5"), opened.text
        error = opened.json()["error"]
        assert (error["code"], error["message"]) == (-32000, REFUSED), error
        assert error["data"] == {"retryAfter": 5}

        # A job started over REST (was: 500) and over MCP on a session opened before (was: -32603).
        refused = rest(served, "slow_square", {"x": 3})
        assert (refused.status_code, refused.headers.get("Retry-After")) == (503, "5"), refused.text
        assert refused.json() == {"error": REFUSED}
        answer = call(served.url, session, "tools/call", {"name": "slow_square", "arguments": {"x": 3}})
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["message"] == REFUSED

        # Not ready while writes are refused (was: 200 throughout); alive all the same.
        wait_until(lambda: ready(served).status_code == 503, "not ready while Redis refuses writes")
        reply = ready(served)
        assert (reply.text, reply.headers.get("Retry-After")) == ("shared state store refuses writes\n", "5")
        assert httpx.get(f"{base(served)}/healthz", timeout=10).text == "ok\n"

        # The job ends now: its end cannot be stored (one WARNING, no traceback); the process answers from it.
        marker.write_text("go")
        wait_until(lambda: f"could not store the end of job {job_id} now" in served.text(), "the job's end is kept")
        polled = rest(served, "get_job_result", {"job_id": job_id})
        assert (polled.status_code, polled.json().get("status")) == (200, "done"), polled.text

        # Some heartbeats refused while idle: still said once (was: one warning per heartbeat).
        seen = refused_sets(admin)
        wait_until(lambda: refused_sets(admin) >= seen + 3, "three more heartbeats refused", timeout=30)
    finally:
        admin.config_set("maxmemory", "0")

    wait_until(lambda: ready(served).status_code == 200, "ready again once Redis takes writes")
    wait_until(lambda: stored_status(admin, job_id) == "completed", "the kept end is stored")
    assert open_session(served.url).status_code == 200
    again = rest(served, "slow_square", {"x": 4})
    assert again.status_code == 202, again.text

    log = served.text()
    assert log.count(f"shared state store {redis_server.url} refuses writes ({OOM})") == 1, served.report()
    assert log.count(f"shared state store {redis_server.url} takes writes again") == 1, served.report()
    assert log.count(f"job store in {redis_server.url} refuses writes ({OOM})") == 1, served.report()
    assert log.count(f"could not store the end of job {job_id} now") == 1, served.report()
    for never in ("heartbeat failed", "Traceback", "Uncaught exception", "ERROR"):
        assert never not in log, served.report()


def test_a_read_only_replica_is_503_naming_it(redis_server: RedisServer, served: Server) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    admin.replicaof("127.0.0.1", str(free_port()))  # a master that is not there: a read-only replica
    try:
        opened = open_session(served.url)
        assert (opened.status_code, opened.headers.get("Retry-After")) == (503, "5"), opened.text
        assert opened.json()["error"]["message"] == ("The server's shared state store refuses writes: READONLY "
                                                     "You can't write against a read only replica; retry shortly")
        wait_until(lambda: ready(served).status_code == 503, "not ready while Redis is a replica")
    finally:
        admin.replicaof("NO", "ONE")
    wait_until(lambda: ready(served).status_code == 200, "ready again once Redis takes writes")
    assert open_session(served.url).status_code == 200
    assert "Traceback" not in served.text(), served.report()
