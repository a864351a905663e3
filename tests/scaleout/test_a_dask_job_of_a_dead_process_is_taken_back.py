"""A Dask job started by a process that is then killed -9 is taken back by another process of the
server (through nginx), with its result: the job runs on the shared Dask cluster, its record in
Redis, and any process may re-attach to it."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import wire
from cluster import Cluster, heartbeat_runs_out
from redis_server import RedisServer
from support import installed

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture
def dask_cluster() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as local,
        Client(local, set_as_default=False) as client,
    ):
        local.worker_pids = set(client.run(os.getpid).values())
        yield local


def test_a_dask_job_is_taken_back_by_another_process(
    dask_cluster: Any, redis_server: RedisServer, tmp_path: Path
) -> None:
    from nginx_weber import find_nginx

    nodes = Cluster(
        installed(find_nginx(), "nginx"),
        tmp_path,
        redis_server.url,
        DASK_SCHEDULER_ADDRESS=dask_cluster.scheduler_address,
    )
    try:
        starter = nodes.servers[0]
        marker = tmp_path / "go"
        started = wire.httpx.post(
            starter.url.removesuffix("/mcp") + "/tools/wait_on_dask", json={"path": str(marker)}, timeout=30
        )
        assert started.status_code == 202, started.text
        job_id = started.json()["job_id"]
        poll = nodes.url.removesuffix("/mcp") + "/tools/get_job_result"
        import redis

        record = f"nanohubmcp:scaleout-test:job:{job_id}"
        store = redis.Redis.from_url(redis_server.url, decode_responses=True)
        deadline = time.monotonic() + 60
        while int(store.hget(record, "progress_updates") or 0) == 0:  # the worker runs it
            assert time.monotonic() < deadline, store.hgetall(record)
            time.sleep(0.2)
        starter.kill()
        heartbeat_runs_out(redis_server.url, job_id)  # (as Redis ends it 10 s later at most)
        marker.write_text("go")  # the job, still on the cluster, may finish now
        deadline = time.monotonic() + 60
        while True:
            answer = wire.httpx.post(poll, json={"job_id": job_id}, timeout=10).json()
            if answer.get("status") != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert answer["status"] == "done", answer
        result = answer["result"] if isinstance(answer["result"], dict) else json.loads(answer["result"])
        assert result["found"] == str(marker)
        assert result["pid"] in dask_cluster.worker_pids
    finally:
        nodes.close()
