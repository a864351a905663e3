"""A job on ``job_executor="dask"`` (a real ``distributed.LocalCluster`` with a worker process):
its provenance record, read by the official client through the URI its job handle named, says
the executor, the Dask worker that ran it (the cluster's worker address), the job's end and its
result's digest; the finished job's result (``tasks/result``-style, in the job store) names the
record too."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.anyio


def cube(n: int) -> dict[str, int]:
    """n cubed, with the pid of the process that ran it."""
    return {"cube": n**3, "pid": os.getpid()}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local, set_as_default=False) as client,
    ):
        local.worker_addresses = set(client.scheduler_info()["workers"])
        yield local


async def test_a_dask_jobs_record_names_its_worker(cluster: Any, tmp_path: Path) -> None:
    server = MCPServer(
        "dask-provenance", state_dir=str(tmp_path), job_executor="dask", dask_address=cluster.scheduler_address
    )
    server.async_tool()(cube)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            started = await client.call_tool("cube", {"n": 4})
            job_id = started.structured_content["job_id"]
            uri = started.meta["io.nanohub/provenance"]
            with anyio.fail_after(60):
                while (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content[
                    "status"
                ] == "running":
                    await anyio.sleep(0.05)
            record = json.loads((await client.read_resource(uri)).contents[0].text)
        stored = server.core.jobs.backend.load(job_id)  # the job store's record, as every route reads it
    assert record["executor"] == "dask"
    assert record["status"] == "completed"
    assert record["where"]["dask_worker"] in cluster.worker_addresses
    assert record["result_digest"].startswith("sha256:")
    assert record["ended"] >= record["started"]
    assert stored is not None
    assert stored["result"]["_meta"]["io.nanohub/provenance"] == uri
    assert stored["result"]["structuredContent"]["pid"] != os.getpid()
