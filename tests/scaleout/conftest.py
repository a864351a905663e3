"""Fixtures of the scale-out tests: a real redis-server, real nginx, several server processes.

redis-server and nginx come from the system (``scripts/install-test-system-deps`` installs
them; CI runs it). Locally a missing one skips these tests; under CI it fails them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from cluster import Cluster, on_own_redis
from redis_server import RedisServer, find_redis, job_stores_let_go, wake_job_watchers
from support import installed

from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.url import parse

sys.path.insert(0, str(Path(__file__).parents[1] / "proxy"))
from nginx_weber import find_nginx


def _forget_the_tests_log_records(caplog: pytest.LogCaptureFixture) -> None:
    """Empty the test's captured log records (pytest keeps the call's until its teardown ends). A record's
    arguments may be an exception whose traceback holds a server's job store (``log.warning("... %s", exc)``
    while Redis was down): kept, the store's threads could not end before the bound of :func:`job_stores_let_go`
    (10 s a test). The report's "Captured log" text is made apart from these records and stays."""
    for when in ("setup", "call"):
        caplog.get_records(when).clear()


@pytest.fixture
def redis_server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[RedisServer]:
    """A redis-server on a free loopback port (stop()/start() for outages)."""
    server = RedisServer(installed(find_redis(), "redis-server"), tmp_path).start()
    try:
        with job_stores_let_go(wake=lambda: wake_job_watchers(server.url)):  # before Redis stops
            yield server
            _forget_the_tests_log_records(caplog)
    finally:
        server.stop()


@pytest.fixture
def redis_on_disk(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[RedisServer]:
    """A redis-server on disk (its restart forgets no record); the job stores of the servers made meanwhile let
    go before it stops."""
    redis = RedisServer(installed(find_redis(), "redis-server"), tmp_path, persistent=True).start()
    try:
        with job_stores_let_go(wake=lambda: wake_job_watchers(redis.url)):
            yield redis
            _forget_the_tests_log_records(caplog)
    finally:
        redis.stop()


@pytest.fixture
def cluster(redis_server: RedisServer, tmp_path: Path) -> Iterator[Cluster]:
    """Three server processes sharing the Redis, behind nginx round-robin (fresh for each test:
    for the tests that kill a process or Redis)."""
    nodes = Cluster(installed(find_nginx(), "nginx"), tmp_path, redis_server.url)
    try:
        yield nodes
    finally:
        nodes.close()


@pytest.fixture(scope="module")
def calm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster (and Redis) for a whole module of tests that leave the processes running."""
    with on_own_redis(tmp_path_factory.mktemp("calm")) as nodes:
        yield nodes


@pytest.fixture(params=["redis", "sqlite"])
def two_job_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[jobmod.JobStore, jobmod.JobStore]]:
    """Two job stores standing for two processes of one server: on one real redis-server, and on one
    SQLite state directory."""
    if request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        made = [jobmod.JobStore(name="two", shared=parse(server.url)) for _ in range(2)]
    else:
        made = [jobmod.JobStore(name="two", state_dir=tmp_path) for _ in range(2)]
    for store in made:
        store.open()
    try:
        yield made[0], made[1]
    finally:
        _closed(made)


@pytest.fixture(params=["memory", "sqlite", "redis"])
def job_store_of_each_kind(request: pytest.FixtureRequest,
                           tmp_path: Path) -> Iterator[Callable[..., jobmod.JobStore]]:
    """``make(ttl, name, **limits)``: a new job store of each kind (in memory, one SQLite file, a real
    redis-server) keeping jobs ``ttl`` seconds, named ``name`` (on Redis ``name`` and how many were made before:
    each its own keys), with ``limits`` (``max_jobs=2``, ``max_jobs_per_owner=2``). All are closed at the end."""
    made: list[jobmod.JobStore] = []
    # (Redis asked for first: it stops after this fixture's end has closed the stores, so their threads end at once)
    redis: RedisServer | None = request.getfixturevalue("redis_server") if request.param == "redis" else None

    def make(ttl: float, name: str, **limits: int) -> jobmod.JobStore:
        if redis is not None:
            store = jobmod.JobStore(ttl, name=f"{name}{len(made)}", shared=parse(redis.url), **limits)
        else:
            store = jobmod.JobStore(ttl, name=name, state_dir=tmp_path / str(len(made)), kind=request.param,
                                    **limits)
        made.append(store)
        return store

    try:
        yield make
    finally:
        _closed(made)


def _closed(stores: list[jobmod.JobStore]) -> None:
    for store in stores:
        store.backend.close()
        if store.runs.locks is not None:
            store.runs.locks.release()  # (its heartbeat's thread ends now, not at the next collection)
