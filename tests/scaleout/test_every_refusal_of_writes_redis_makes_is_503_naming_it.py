"""Every refusal of writes a real redis-server makes is answered like ``OOM`` is (trial54 N2's follow-up).

``nanohubmcp.state.redis_refusals`` names seven error replies that mean "the store cannot take a write now"; ``OOM``
and a replica's ``READONLY`` had tests, the others were recognised but never met. Here each is provoked for real on
the redis-server a ``nanohubmcp run`` process shares:

- ``NOREPLICAS``: ``min-replicas-to-write 1`` with no replica attached;
- ``MISCONF``: ``stop-writes-on-bgsave-error yes`` (the default) with a save point, and a ``BGSAVE`` that fails (a
  folder where the snapshot's file would be renamed to: ``CONFIG SET dir`` is a protected setting in Redis 7, refused
  unless ``enable-protected-configs``); it ends with a ``BGSAVE`` that succeeds;
- ``BUSY``: a read-only Lua script spinning on ``TIME`` from a second connection (``busy-reply-threshold`` 100 ms:
  other clients are answered ``BUSY`` after it), bounded, ended with ``SCRIPT KILL``;
- ``MASTERDOWN``: the Redis made a replica of a master that is not there, with ``replica-serve-stale-data no``
  (and ``replica-read-only no``, else a write is answered ``READONLY`` first, tested already); a read-only replica's
  reads are answered ``MASTERDOWN`` too (the second test).

For each: a new session, a job started over REST and a call on a session opened before are 503 with
``Retry-After`` and a message naming the refusal (never 500); ``/readyz`` is 503 while it lasts; a job ending
meanwhile is stored once writes are taken; afterwards the session opened before is served, new sessions and jobs
are taken, and the refusal was said once when it began and once when it ended.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from app_processes import base, one_app_process, ready, rest
from cluster import Server
from redis_server import RedisServer, free_port
from support import wait_until
from wire import call, initialize, open_session

pytestmark = pytest.mark.timeout(150)

JOB_KEY = "nanohubmcp:scaleout-test:job:{}"
SPIN_BOUND = 60
"""Seconds the BUSY script spins at most (it is killed long before)."""
SPIN = f"""
local start = tonumber(redis.call('TIME')[1])
while tonumber(redis.call('TIME')[1]) < start + {SPIN_BOUND} do end
return 1
"""


def refused(reason: str) -> str:
    return f"The server's shared state store refuses writes: {reason}; retry shortly"


class Refusal:
    """One way of making the Redis refuse writes: ``begin`` it, ``end`` it (the Redis takes writes again)."""

    reason = ""

    def __init__(self, redis_server: RedisServer) -> None:
        self.redis_server = redis_server
        self.admin = redis.Redis.from_url(redis_server.url, decode_responses=True)

    def begin(self) -> None:
        raise NotImplementedError

    def end(self) -> None:
        raise NotImplementedError

    def refuses_a_write(self) -> bool:
        try:
            redis.Redis.from_url(self.redis_server.url, socket_timeout=5).set("probe", "1")
        except redis.ResponseError as exc:
            return self.reason.split(" ", 1)[0] in str(exc) or isinstance(exc, redis.exceptions.MasterDownError)
        return False


class NoReplicas(Refusal):
    reason = "NOREPLICAS Not enough good replicas to write"

    def begin(self) -> None:
        self.admin.config_set("min-replicas-to-write", 1)

    def end(self) -> None:
        self.admin.config_set("min-replicas-to-write", 0)


class Misconf(Refusal):
    reason = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk"

    def snapshot(self) -> Path:
        return self.redis_server.workdir / str(self.admin.config_get("dbfilename")["dbfilename"])

    def bgsave_status(self) -> str:
        info = self.admin.info("persistence")
        return "running" if info["rdb_bgsave_in_progress"] else str(info["rdb_last_bgsave_status"])

    def begin(self) -> None:
        assert self.admin.config_get("stop-writes-on-bgsave-error")["stop-writes-on-bgsave-error"] == "yes"
        self.snapshot().mkdir()  # the finished snapshot cannot be renamed onto a folder (root or not)
        self.admin.config_set("save", "3600 1")  # (a Redis saving nothing never refuses: MISCONF needs a save point)
        self.admin.bgsave()
        wait_until(lambda: self.bgsave_status() == "err", "the background save failed")

    def end(self) -> None:
        self.snapshot().rmdir()
        self.admin.bgsave()
        wait_until(lambda: self.bgsave_status() == "ok", "a background save succeeded")
        self.admin.config_set("save", "")


class Busy(Refusal):
    reason = "BUSY Redis is busy running a script"

    def __init__(self, redis_server: RedisServer) -> None:
        super().__init__(redis_server)
        self.outcome: list[BaseException | Any] = []
        self.spinner = threading.Thread(target=self._spin, name="busy-script", daemon=True)

    def _spin(self) -> None:
        with redis.Redis.from_url(self.redis_server.url, socket_timeout=SPIN_BOUND + 30) as client:
            try:
                self.outcome.append(client.eval(SPIN, 0))
            except redis.RedisError as exc:
                self.outcome.append(exc)

    def begin(self) -> None:
        self.admin.config_set("busy-reply-threshold", 100)  # (5 s by default)
        self.spinner.start()
        wait_until(self.refuses_a_write, "the script makes Redis busy")

    def end(self) -> None:
        with contextlib.suppress(redis.ResponseError):  # (NOTBUSY: the script ended on its own)
            self.admin.script_kill()
        self.spinner.join(SPIN_BOUND + 30)
        assert not self.spinner.is_alive()
        assert "Script killed by user" in " ".join(map(str, self.outcome)), self.outcome  # not ended by its bound
        self.admin.config_set("busy-reply-threshold", 5000)


class MasterDown(Refusal):
    reason = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'"
    read_only = "no"

    def begin(self) -> None:
        self.admin.config_set("replica-serve-stale-data", "no")
        self.admin.config_set("replica-read-only", self.read_only)
        self.admin.replicaof("127.0.0.1", str(free_port()))  # a master that is not there
        assert self.admin.info("replication")["master_link_status"] == "down"

    def end(self) -> None:
        self.admin.replicaof("NO", "ONE")
        self.admin.config_set("replica-serve-stale-data", "yes")
        self.admin.config_set("replica-read-only", "yes")


@pytest.fixture
def served(redis_server: RedisServer, tmp_path: Path) -> Iterator[Server]:
    with one_app_process(redis_server.url, tmp_path) as server:
        yield server


def stored_status(admin: redis.Redis, job_id: str) -> str | None:
    raw = admin.hget(JOB_KEY.format(job_id), "status")
    return None if raw is None else str(json.loads(raw))


def where(server: Server, session: str) -> httpx.Response:
    return call(server.url, session, "tools/call", {"name": "where", "arguments": {}})


@pytest.mark.parametrize("kind", [NoReplicas, Misconf, Busy, MasterDown], ids=lambda kind: kind.__name__)
def test_each_refusal_is_503_naming_it_and_loses_nothing(
    redis_server: RedisServer, served: Server, tmp_path: Path, kind: Callable[[RedisServer], Refusal]
) -> None:
    refusal = kind(redis_server)
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    session = initialize(served.url)
    assert where(served, session).status_code == 200
    marker = tmp_path / "go"
    started = rest(served, "until_file", {"path": str(marker)})
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    wait_until(lambda: stored_status(admin, job_id) == "working", "the job runs")

    refusal.begin()
    try:
        message = refused(refusal.reason)
        opened = open_session(served.url)
        assert (opened.status_code, opened.headers.get("Retry-After")) == (503, "5"), opened.text
        error = opened.json()["error"]
        assert (error["code"], error["message"], error["data"]) == (-32000, message, {"retryAfter": 5}), error

        job = rest(served, "slow_square", {"x": 3})
        assert (job.status_code, job.headers.get("Retry-After"), job.json()) == (503, "5", {"error": message})

        # The session opened before: its call needs the store too (its record, the job it starts).
        answer = call(served.url, session, "tools/call", {"name": "slow_square", "arguments": {"x": 3}})
        assert (answer.status_code, answer.headers.get("Retry-After")) == (503, "5"), answer.text
        assert answer.json()["error"]["message"] == message

        wait_until(lambda: ready(served).status_code == 503, "not ready while Redis refuses writes")
        reply = ready(served)
        assert (reply.text, reply.headers.get("Retry-After")) == ("shared state store refuses writes\n", "5")
        assert httpx.get(f"{base(served)}/healthz", timeout=10).text == "ok\n"

        marker.write_text("go")  # the job ends now: its end is kept until the store takes it
        wait_until(lambda: f"could not store the end of job {job_id} now" in served.text(), "the job's end is kept")
    finally:
        refusal.end()

    wait_until(lambda: ready(served).status_code == 200, "ready again once Redis takes writes")
    wait_until(lambda: stored_status(admin, job_id) == "completed", "the kept end is stored")
    polled = rest(served, "get_job_result", {"job_id": job_id})
    assert (polled.status_code, polled.json().get("status")) == (200, "done"), polled.text
    assert where(served, session).status_code == 200  # the session opened before is served
    assert open_session(served.url).status_code == 200
    again = rest(served, "slow_square", {"x": 4})
    assert again.status_code == 202, again.text

    log = served.text()
    url = redis_server.url
    assert log.count(f"shared state store {url} refuses writes ({refusal.reason})") == 1, served.report()
    assert log.count(f"shared state store {url} takes writes again") == 1, served.report()
    assert log.count(f"job store in {url} refuses writes ({refusal.reason})") == 1, served.report()
    assert log.count(f"could not store the end of job {job_id} now") == 1, served.report()
    for never in ("unreachable", "heartbeat failed", "Traceback", "Uncaught exception", "ERROR"):
        assert never not in log, served.report()


class ReadOnlyMasterDown(MasterDown):
    read_only = "yes"


def test_a_read_only_replica_cut_off_from_its_master_answers_reads_masterdown(
    redis_server: RedisServer, served: Server, tmp_path: Path
) -> None:
    """A replica as made by default (``replica-read-only yes``) with ``replica-serve-stale-data no``: a write is
    answered ``READONLY``, a read ``MASTERDOWN``: a job's poll on a process that did not run it, which only reads, is
    503 naming it (a Redis refusing only writes serves it)."""
    session = initialize(served.url)
    started = rest(served, "slow_square", {"x": 5})
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    wait_until(lambda: stored_status(admin, job_id) == "completed", "the job ends")
    (tmp_path / "other").mkdir()
    with one_app_process(redis_server.url, tmp_path / "other") as other:  # it reads the job's record from Redis
        refusal = ReadOnlyMasterDown(redis_server)
        refusal.begin()
        try:
            wait_until(lambda: ready(served).status_code == 503, "not ready while Redis is a replica cut off")
            polled = rest(other, "get_job_result", {"job_id": job_id})
            assert (polled.status_code, polled.headers.get("Retry-After")) == (503, "5"), polled.text
            assert polled.json() == {"error": refused(refusal.reason)}
            answer = where(served, session)  # (the session's record is read first: its idle clock restarts later)
            assert (answer.status_code, answer.headers.get("Retry-After")) == (503, "5"), answer.text
            assert answer.json()["error"]["message"] == refused(refusal.reason)
        finally:
            refusal.end()
        wait_until(lambda: ready(other).status_code == 200, "ready again once Redis takes writes")
        polled = rest(other, "get_job_result", {"job_id": job_id})
        assert (polled.status_code, polled.json().get("result")) == (200, 25), polled.text
        for never in ("Traceback", "Uncaught exception", "ERROR"):
            assert never not in other.text(), other.report()
    assert where(served, session).status_code == 200
    for never in ("Traceback", "Uncaught exception", "ERROR"):
        assert never not in served.text(), served.report()
