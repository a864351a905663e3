"""A job on ``job_executor="dask"`` (a real ``distributed.LocalCluster`` with a worker process, whose
pid is not the server's): its provenance record, read by the official client through the URI its job
handle named, says the executor, the Dask worker that ran it (the cluster's worker address) and where
on it the function ran — the host, the worker process's pid and the thread, as the function itself
saw them, as a ``processes`` job's record names its own process — the job's end and its result's
digest; its RO-Crate names the same place. The finished job's result (``tasks/result``-style, in the
job store) names the record too. A job whose function raised names no place (its task answered
none), never the server's process. A task of an earlier version answers a result without the
place, which still reads."""

from __future__ import annotations

import os
import pickle
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import crate_action, ended_job, mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.crate import export

pytestmark = pytest.mark.timeout(180)

# WorkerResult({"n": 3}, "tcp://127.0.0.1:40001") as the version before the place pickled it.
EARLIER_RESULT = (
    b"\x80\x05\x95w\x00\x00\x00\x00\x00\x00\x00\x8c(nanohubmcp.server.executors.dask_cluster\x94\x8c\x0c"
    b"WorkerResult\x94\x93\x94)\x81\x94}\x94(\x8c\x05value\x94}\x94\x8c\x01n\x94K\x03s\x8c\x06worker\x94"
    b"\x8c\x15tcp://127.0.0.1:40001\x94ub."
)


def cube(n: int) -> dict[str, Any]:
    """n cubed, with the host, pid and thread that ran the function."""
    return {"cube": n**3, "host": socket.gethostname(), "pid": os.getpid(), "thread": threading.current_thread().name}


def refuses(n: int) -> int:
    """Raise, on the worker."""
    raise ValueError(f"no {n}")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local, set_as_default=False) as client,
    ):
        local.worker_addresses = set(client.scheduler_info()["workers"])
        yield local


@pytest.mark.anyio
async def test_a_dask_jobs_record_names_its_worker_and_the_process_there(cluster: Any, tmp_path: Path) -> None:
    server = MCPServer(
        "dask-provenance", state_dir=str(tmp_path), job_executor="dask", dask_address=cluster.scheduler_address
    )
    server.async_tool()(cube)
    server.async_tool()(refuses)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            started = await client.call_tool("cube", {"n": 4})
            answer, record = await ended_job(client, started)
            failed_answer, failed = await ended_job(client, await client.call_tool("refuses", {"n": 4}))
        # as every route reads it
        stored = server.core.job_service.jobs.backend.load(started.structured_content["job_id"])
        folder = export(server.core.provenance, record["uri"], tmp_path / "crate")
    seen = answer["result"]
    assert seen["pid"] != os.getpid()  # the worker's own process
    assert record["executor"] == "dask"
    assert record["status"] == "completed"
    where = record["where"]
    assert where["dask_worker"] in cluster.worker_addresses, record
    assert (where["host"], where["pid"], where["thread"]) == (seen["host"], seen["pid"], seen["thread"]), record
    assert record["server"]["pid"] == os.getpid()  # the process that took the call
    assert record["result_digest"].startswith("sha256:")
    assert record["ended"] >= record["started"]
    assert stored is not None
    assert stored["result"]["_meta"]["io.nanohub/provenance"] == record["uri"]
    assert crate_action(folder)["description"] == (
        f"Ran on executor dask at dask_worker {where['dask_worker']}, host {seen['host']}, pid {seen['pid']}, "
        f"thread {seen['thread']}"
    )

    assert failed_answer["status"] == "error", failed_answer
    assert failed["status"] == "failed", failed
    assert (failed["where"]["host"], failed["where"]["pid"], failed["where"]["thread"]) == (None, None, None), failed


def test_an_earlier_versions_worker_result_still_reads() -> None:
    from nanohubmcp.server.executors.dask_cluster import answered

    value, where = answered(pickle.loads(EARLIER_RESULT))
    assert value == {"n": 3}
    assert where == {"host": None, "pid": None, "thread": None, "dask_worker": "tcp://127.0.0.1:40001"}
