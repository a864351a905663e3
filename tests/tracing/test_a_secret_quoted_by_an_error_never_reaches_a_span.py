"""A ``Secret`` argument's value quoted by a failed call's exception (its message, its cause's, its context's)
is ``***`` in the trace as in the answer: a job's run span (traced whenever the request is) and the
``execute_tool`` / ``convert_result`` step spans carry the masked text in their status description and their
``exception`` event's ``exception.message`` and ``exception.stacktrace`` (review r37 F3: the spans recorded
``str(exc)`` and the traceback as they were, the one sink that usually leaves the machine).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import cloudpickle
import otel_sdk
import pytest
from support import mcp_client, serve
from test_a_jobs_trace_continues_where_it_runs import cluster  # noqa: F401  (a real LocalCluster whose worker traces)

from nanohubmcp import MCPServer, Secret
from nanohubmcp.server.wire import trace_context
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

SECRET = "hunter2-s3cret"
USERS = {"alice": "ok"}

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # (the Dask worker runs job_login by value)


def spans_told() -> list[dict[str, Any]]:
    """Every finished span as the exporter sends it: name, status, description, events' attributes."""
    return [
        {"name": span.name, "status": span.status.status_code.name, "description": span.status.description,
         "events": [{"name": event.name, **dict(event.attributes or {})} for event in span.events]}
        for span in otel_sdk.EXPORTER.get_finished_spans()
    ]


def exception_of(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [span for span in spans if span["name"] == name]
    assert len(found) == 1, (name, [span["name"] for span in spans])
    events = [event for event in found[0]["events"] if event["name"] == "exception"]
    assert len(events) == 1, found[0]
    assert found[0]["status"] == "ERROR"
    return {"description": found[0]["description"], **events[0]}


async def ended(client: MemoryClient, handle: Any) -> Any:
    """The job's answer once it ended (polled, at most 30 s)."""
    job_id = handle["structuredContent"]["job_id"]
    deadline = time.monotonic() + 30
    while (answer := await client.call_tool("get_job_result", {"job_id": job_id}))["structuredContent"].get(
            "status") in ("queued", "running", "submitted"):
        assert time.monotonic() < deadline, answer
        await anyio.sleep(0.02)
    return answer


def traced_server() -> MCPServer:
    server = MCPServer("secret-spans", tracing=True)

    @server.tool()
    def lookup(user: str, password: Secret) -> str:
        """A KeyError quoting the password."""
        return USERS[password]

    @server.tool()
    def chained(user: str, password: Secret) -> str:
        """The password quoted by the context only."""
        try:
            return USERS[password]
        except KeyError:
            raise ValueError("unknown user")  # noqa: B904  (the KeyError is its context, as written in the wild)

    @server.tool()
    async def alookup(user: str, password: Secret) -> str:
        """The same, async."""
        return USERS[password]

    @server.async_tool()
    def job(user: str, password: Secret) -> str:
        """The same, as a job."""
        return USERS[password]

    return server


async def test_no_span_carries_a_secret_an_error_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", 0.0)  # every step a span (NANOHUBMCP_TRACING_STEP_MS=0)
    otel_sdk.clear()
    arguments = {"user": "alice", "password": SECRET}
    async with MemoryClient(traced_server()) as client:
        for name in ("lookup", "chained", "alookup"):
            answer = await client.call_tool(name, arguments)
            assert answer["isError"], name
            assert SECRET not in str(answer), name
        handle = await client.call_tool("job", arguments)
        polled = await ended(client, handle)
    assert "KeyError: '***'" in str(polled), polled
    spans = spans_told()
    assert SECRET not in json.dumps(spans), [span for span in spans if SECRET in json.dumps(span)]

    direct = exception_of(spans, "execute_tool lookup")
    assert direct["description"] == "'***'"
    assert direct["exception.type"] == "KeyError"
    assert direct["exception.message"] == "'***'"
    assert direct["exception.stacktrace"].endswith("KeyError: '***'")
    context = exception_of(spans, "execute_tool chained")
    assert context["exception.message"] == "unknown user"
    assert "KeyError: '***'" in context["exception.stacktrace"]
    assert "During handling of the above exception" in context["exception.stacktrace"]
    assert exception_of(spans, "execute_tool alookup")["exception.message"] == "'***'"
    run = exception_of(spans, "execute_tool job")  # the job's run span: traced by default, no steps asked
    assert run["description"] == "KeyError: '***'"
    assert run["exception.message"] == "'***'"
    assert run["exception.stacktrace"].endswith("KeyError: '***'")


async def test_a_job_run_span_is_traced_without_steps_and_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", None)  # the default: no step spans, a run span still
    otel_sdk.clear()
    async with MemoryClient(traced_server()) as client:
        handle = await client.call_tool("job", {"user": "alice", "password": SECRET})
        await ended(client, handle)
    spans = spans_told()
    assert SECRET not in json.dumps(spans)
    assert exception_of(spans, "execute_tool job")["exception.message"] == "'***'"


def job_login(user: str, password: Secret) -> str:
    """A KeyError quoting the password, on a Dask worker."""
    return USERS[password]


def worker_spans_told() -> list[dict[str, Any]]:
    return spans_told()


def worker_spans_cleared() -> None:
    otel_sdk.clear()


async def test_a_jobs_run_span_where_it_runs_is_masked(cluster: Any, tmp_path: Path) -> None:  # noqa: F811
    """The ``run_job`` span on the Dask worker (whose application configured the SDK) records the failure masked:
    the job's secret values travel with its trace context (only for a call that has some)."""
    server = MCPServer("secret-worker", state_dir=str(tmp_path), tracing=True, job_executor="dask",
                       dask_address=cluster.scheduler_address)
    server.async_tool()(job_login)
    cluster.client.run(worker_spans_cleared)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            handle = (await session.call_tool("job_login", {"user": "alice", "password": SECRET})).structured_content
            deadline = time.monotonic() + 60
            while handle["status"] == "running":
                assert time.monotonic() < deadline, handle
                await anyio.sleep(0.05)
                handle = (await session.call_tool("get_job_result", {"job_id": handle["job_id"]})).structured_content
    assert handle["error"] == "KeyError: '***'", handle
    on_worker = [span for found in cluster.client.run(worker_spans_told).values() for span in found]
    assert SECRET not in json.dumps(on_worker), on_worker
    remote = exception_of(on_worker, "run_job job_login")
    assert remote["exception.message"] == "'***'"
    assert remote["exception.stacktrace"].endswith("KeyError: '***'")
    assert SECRET not in json.dumps(spans_told())

