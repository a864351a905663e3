"""tracing.md's "Many processes" works as written: ``traced_server.py`` with the SDK set up in the parent and
``server.run(workers=4)`` (a real redis-server as the shared state, an OTLP/HTTP receiver of the test's own)
exports, from every worker that served a call, that call's SERVER span, parented on the request's
``traceparent``, and the operation-duration metric, each worker with a ``service.instance.id`` of its own.

A fresh-user trial (trial61 F4) found nothing saying how to trace a ``--workers`` server, nor whether a
``BatchSpanProcessor`` and a periodic metric reader set up before the fork work in the workers: they do (the SDK
starts their threads again in a forked child), and this test keeps it so.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from scaleout.redis_server import RedisServer, find_redis
from support import installed, serve_handler, wait_until
from tracing.test_the_documented_otlp_setup_exports import PAGE, Receiver, file_block, free_port

pytestmark = pytest.mark.timeout(120)

PID_TOOL = '''

@server.tool()
def pid() -> int:
    """The serving process's id."""
    return os.getpid()

'''


def many_processes_block() -> str:
    """The ``__main__`` block of the page's "Many processes" section."""
    section = PAGE.read_text().split("## Many processes", 1)[1]
    match = re.search(r"```python\n(if __name__ == \"__main__\":\n.*?)\n```", section, re.S)
    assert match is not None, "tracing.md's Many processes section has no __main__ block"
    return match.group(1) + "\n"


def served_file() -> str:
    """The page's ``traced_server.py`` with the section's ``__main__`` block, and a tool naming its process."""
    text = file_block("traced_server.py")
    head = text.split('if __name__ == "__main__":', 1)[0]
    head = head.replace("\n\ndef configure_opentelemetry", PID_TOOL + "\ndef configure_opentelemetry", 1)
    assert "def pid()" in head
    return head + many_processes_block()


def call_pid(port: int, trace_id: str) -> int | None:
    """``pid()`` on a new connection with a ``traceparent`` of ``trace_id``; None while nothing answers."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "pid", "arguments": {}}})
    request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", body.encode(), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            answer = response.read().decode()
    except OSError:
        return None
    found = re.search(r'"text":\s*"(\d+)"', answer)
    assert found is not None, answer
    return int(found.group(1))


def resources_of(path: str, kind: str) -> dict[str, list[Any]]:
    """What the receiver got on ``path``: each ``service.instance.id`` and its exported items (``kind``:
    ``spans`` or ``metrics``)."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    found: dict[str, list[Any]] = {}
    for got, body in list(Receiver.received):
        if got != path:
            continue
        if kind == "spans":
            for entry in ExportTraceServiceRequest.FromString(body).resource_spans:
                items = [span for scope in entry.scope_spans for span in scope.spans]
                found.setdefault(instance(entry.resource), []).extend(items)
        else:
            for entry in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                items = [metric.name for scope in entry.scope_metrics for metric in scope.metrics]
                found.setdefault(instance(entry.resource), []).extend(items)
    return found


def instance(resource: Any) -> str:
    return next(a.value.string_value for a in resource.attributes if a.key == "service.instance.id")


def test_every_worker_exports_the_spans_and_metrics_of_its_calls(tmp_path: Path) -> None:
    redis = RedisServer(installed(find_redis(), "redis-server"), tmp_path).start()
    Receiver.received = []

    port = free_port()
    (tmp_path / "traced_server.py").write_text(served_file())
    log = tmp_path / "server.log"
    with serve_handler(Receiver) as collector, log.open("wb") as output:
        env = {**os.environ, "MCP_PORT": str(port), "NANOHUBMCP_STATE_URL": redis.url,
               "OTEL_EXPORTER_OTLP_ENDPOINT": collector, "OTEL_BSP_SCHEDULE_DELAY": "50",
               "OTEL_METRIC_EXPORT_INTERVAL": "200"}
        env.pop("NANOHUBMCP_TRACING", None)
        process = subprocess.Popen([sys.executable, "traced_server.py"], cwd=tmp_path, env=env, stdout=output,
                                   stderr=subprocess.STDOUT)
        try:
            served: dict[str, int] = {}  # trace id -> the pid that served it

            def two_workers_served() -> bool:
                assert process.poll() is None, log.read_text()
                trace_id = f"{len(served) + 1:032x}"
                pid = call_pid(port, trace_id)
                if pid is not None:
                    served[trace_id] = pid
                return len(set(served.values())) >= 2

            wait_until(two_workers_served, "calls served by two workers", 60)
            assert process.pid not in served.values()  # (the parent serves nothing: it forked the workers)

            def every_span_exported() -> bool:
                spans = resources_of("/v1/traces", "spans")
                got = {span.trace_id.hex() for items in spans.values() for span in items
                       if span.name == "tools/call pid"}
                return set(served) <= got

            wait_until(every_span_exported, "every call's span exported", 30)
            spans = resources_of("/v1/traces", "spans")
            by_worker: dict[int, set[str]] = {}
            for worker_instance, items in spans.items():
                for span in items:
                    if span.trace_id.hex() in served:
                        assert span.parent_span_id.hex() == "00f067aa0ba902b7"
                        assert span.kind == 2  # SPAN_KIND_SERVER
                        by_worker.setdefault(served[span.trace_id.hex()], set()).add(worker_instance)
            assert all(len(instances) == 1 for instances in by_worker.values()), by_worker
            assert len(set.union(*by_worker.values())) == len(by_worker)  # each worker its own service.instance.id

            def each_worker_exported_metrics() -> bool:
                metrics = resources_of("/v1/metrics", "metrics")
                exporting = {key for key, names in metrics.items() if "mcp.server.operation.duration" in names}
                return set.union(*by_worker.values()) <= exporting

            wait_until(each_worker_exported_metrics, "each worker's operation-duration metric exported", 30)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            redis.stop()
