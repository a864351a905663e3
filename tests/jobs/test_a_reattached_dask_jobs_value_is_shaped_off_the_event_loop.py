"""A Dask job taken back after a restart has its value shaped where any call's is: on the worker pool for a
large or costly value (review r20, L9).

``follow_reattached`` shaped the value (``shape``, ``json_spelled``) in its coroutine on the event loop: a
re-attached job's arrays were encoded and its figures drawn there, every other client waiting. The value's
last item is a ``str`` whose class, as ``isinstance`` reads it in the server, says which thread looked at it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from job_server import Routes
from support import serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.results.convert import COSTLY_ITEMS

pytestmark = pytest.mark.timeout(180)

LOOKED: list[str] = []
"""The threads of this process that read a :class:`Watched`'s class."""


class Watched(str):
    @property  # type: ignore[misc]
    def __class__(self) -> type:  # (isinstance reads it when the type alone does not decide)
        LOOKED.append(threading.current_thread().name)
        return Watched


def records_when_told(marker: str) -> list[object]:
    """Wait until ``marker`` exists, then answer many records and one watched text."""
    deadline = time.monotonic() + 60
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return [{"n": i} for i in range(COSTLY_ITEMS + 1)] + [Watched("last")]


async def loop_thread() -> str:
    """The thread of the server's event loop."""
    return threading.current_thread().name


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local, \
            Client(local, set_as_default=False):
        yield local


def test_a_reattached_jobs_large_value_is_shaped_off_the_loop(cluster: Any, tmp_path: Path) -> None:
    from distributed import Client

    server = MCPServer("reattach", state_dir=str(tmp_path), job_executor="dask",
                       dask_address=cluster.scheduler_address)
    server.async_tool()(records_when_told)
    server.tool()(loop_thread)
    marker = tmp_path / "go"
    with serve(server) as url, Client(cluster.scheduler_address, set_as_default=False) as client:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("records_when_told", {"marker": str(marker)})
        assert status == 202, body
        job_id = body["job_id"]
        wait_until(lambda: "nanohubmcp-job-" + job_id in client.list_datasets(), "the job's publication")
    marker.write_text("go")
    LOOKED.clear()
    with serve(server) as url:  # started again: the job is taken back from the cluster
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        loop = routes.http("/tools/loop_thread", {})[2]["result"]
        answer = wait_until(lambda: (a := routes.rest_poll(job_id)[1])["status"] != "running" and a,
                            "the job to be taken back")
    assert answer["status"] == "done", answer
    assert answer["result"][-1] == "last"
    assert LOOKED, "nothing looked at the value"
    assert loop not in LOOKED, LOOKED
