"""An ``@async_tool`` job of a traced call stays in the client's trace wherever it runs: its
queueing and its run are spans under the call's SERVER span, and the run's trace context travels
to the executor as a W3C carrier in the job's payload — on a worker thread, in a worker process of
the ``processes`` executor, on the worker of a real Dask ``LocalCluster`` (worker processes), and
in a job on the real single-node Slurm, where a span ``run_job {tool}`` continues it. On Slurm the
node's Python gets its tracer provider the way docs/how-to/tracing.md says ("On a Slurm node"): the
``setup`` option puts a ``sitecustomize.py`` on ``PYTHONPATH`` and exports ``OTEL_*`` variables
(trial 18, F5: no recipe for Slurm)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import otel_sdk
import pytest
from opentelemetry import trace
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.wire.trace_context import current_trace_ids

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

# ``where`` travels to the Slurm node by value (the node cannot import this test module).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SITECUSTOMIZE = """\
# The OpenTelemetry SDK for every Python that starts with this folder on PYTHONPATH (a Slurm job's).
import os

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

_out = open(os.environ["NODE_SPANS"], "a")
_provider = TracerProvider(resource=Resource.create())  # reads OTEL_SERVICE_NAME
_provider.add_span_processor(
    SimpleSpanProcessor(ConsoleSpanExporter(out=_out, formatter=lambda span: span.to_json(indent=None) + "\\n"))
)
trace.set_tracer_provider(_provider)
"""


def where() -> dict[str, Any]:
    """The process and the trace context the job's function runs in."""
    ids = current_trace_ids()
    return {"pid": os.getpid(), "trace_id": ids[0] if ids else None, "span_id": ids[1] if ids else None}


# -- what runs on the Dask worker (client.run): the worker process's own SDK set-up ----------------
def configure_worker_sdk() -> bool:
    import otel_sdk  # noqa: F401  (sets the global providers of the worker process, once)

    return True


def worker_spans() -> list[dict[str, Any]]:
    import otel_sdk

    return otel_sdk.finished()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A real LocalCluster: one worker process whose application configured the OpenTelemetry SDK."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local, set_as_default=False) as client,
    ):
        client.run(configure_worker_sdk)
        local.client = client
        yield local


@pytest.fixture(autouse=True)
def _no_spans_yet() -> None:
    otel_sdk.clear()


async def run_traced_job(server: MCPServer) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """Call ``where`` as a job inside a client span; its value, the trace id and the spans here."""
    server.async_tool()(where)
    with serve(server) as url, trace.get_tracer("assistant").start_as_current_span("assistant turn") as turn:
        async with mcp_client(url + "mcp") as session:
            handle = (await session.call_tool("where", {})).structured_content
            deadline = time.monotonic() + 60
            while handle["status"] == "running":
                assert time.monotonic() < deadline, handle
                time.sleep(0.05)
                handle = (await session.call_tool("get_job_result", {"job_id": handle["job_id"]})).structured_content
    assert handle["status"] == "done", handle
    return handle["result"], otel_sdk.hex_id(turn.get_span_context().trace_id, 32), otel_sdk.finished()


def one(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [s for s in spans if s["name"] == name]
    assert len(found) == 1, (name, [s["name"] for s in spans])
    return found[0]


def server_side(spans: list[dict[str, Any]], trace_id: str, executor: str) -> dict[str, Any]:
    """The call's SERVER span, its queueing span and the job's run span, chained; returns the run."""
    call = one(spans, "tools/call where")
    queued = one(spans, "queue_job where")
    run = one(spans, "execute_tool where")
    assert call["trace_id"] == queued["trace_id"] == run["trace_id"] == trace_id
    assert (call["kind"], queued["parent_id"], run["parent_id"]) == ("SERVER", call["span_id"], queued["span_id"])
    assert run["attributes"] == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "where",
        "nanohubmcp.job.executor": executor,
    }
    return run


async def test_a_thread_job_runs_inside_its_run_span(tmp_path: Path) -> None:
    value, trace_id, spans = await run_traced_job(MCPServer("jobs", state_dir=str(tmp_path), tracing=True))
    run = server_side(spans, trace_id, "threads")
    assert (value["pid"], value["trace_id"], value["span_id"]) == (os.getpid(), trace_id, run["span_id"])


async def test_a_process_job_continues_the_trace_in_its_worker_process(tmp_path: Path) -> None:
    server = MCPServer("jobs", state_dir=str(tmp_path), tracing=True, job_executor="processes", job_workers=1)
    value, trace_id, spans = await run_traced_job(server)
    server_side(spans, trace_id, "processes")
    assert value["pid"] != os.getpid()
    assert value["trace_id"] == trace_id  # the worker's span (or the carried parent) is in the trace


async def test_a_dask_job_continues_the_trace_on_the_worker(cluster: Any, tmp_path: Path) -> None:
    server = MCPServer(
        "jobs", state_dir=str(tmp_path), tracing=True, job_executor="dask", dask_address=cluster.scheduler_address
    )
    value, trace_id, spans = await run_traced_job(server)
    run = server_side(spans, trace_id, "dask")
    assert value["pid"] != os.getpid()
    on_worker = [s for found in cluster.client.run(worker_spans).values() for s in found]
    remote = one(on_worker, "run_job where")
    assert (remote["trace_id"], remote["parent_id"], remote["parent_remote"]) == (trace_id, run["span_id"], True)
    assert remote["attributes"] == {"gen_ai.tool.name": "where"}
    assert (value["trace_id"], value["span_id"]) == (trace_id, remote["span_id"])  # the tool ran inside it


@pytest.mark.timeout(180)
async def test_a_slurm_job_continues_the_trace_on_its_node(slurm_cluster: str, tmp_path: Path) -> None:
    site, node_spans = tmp_path / "otelsite", tmp_path / "node-spans.jsonl"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    setup = [
        f"export PYTHONPATH={site}${{PYTHONPATH:+:$PYTHONPATH}}",
        f"export NODE_SPANS={node_spans}",
        "export OTEL_SERVICE_NAME=where-on-slurm",
    ]
    server = MCPServer("jobs", state_dir=str(tmp_path / "state"), tracing=True, job_executor="slurm",
                       executor_options={"setup": setup})
    value, trace_id, spans = await run_traced_job(server)
    run = server_side(spans, trace_id, "slurm")
    assert value["pid"] != os.getpid()
    on_node = [json.loads(line) for line in node_spans.read_text().splitlines()]
    remote = [span for span in on_node if span["name"] == "run_job where"]
    assert len(remote) == 1, on_node
    assert remote[0]["context"]["trace_id"] == "0x" + trace_id
    assert remote[0]["parent_id"] == "0x" + run["span_id"]
    assert remote[0]["resource"]["attributes"]["service.name"] == "where-on-slurm"
    assert (value["trace_id"], "0x" + value["span_id"]) == (trace_id, remote[0]["context"]["span_id"])


async def test_an_untraced_job_carries_no_context(tmp_path: Path) -> None:
    value, _, spans = await run_traced_job(MCPServer("jobs", state_dir=str(tmp_path), tracing=False))
    assert value["trace_id"] is None
    assert [s["kind"] for s in spans if s["kind"] != "CLIENT"] == ["INTERNAL"]  # only the "assistant turn"
