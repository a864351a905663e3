"""The set-up docs/how-to/tracing.md shows works as written with a collector: its
``traced_server.py``, run with ``OTEL_EXPORTER_OTLP_ENDPOINT`` naming an OTLP/HTTP receiver (here
one of the test's own, decoding what it gets with the OTLP protobuf messages), exports the call's
SERVER span, parented on the request's ``traceparent``, and the operation-duration metric; without one,
it prints each span as it ends."""

from __future__ import annotations

import gzip
import os
import re
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from support import serve_handler, wait_until

pytestmark = pytest.mark.timeout(90)

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "tracing.md"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def file_block(name: str) -> str:
    match = re.search(rf"<!-- file: {re.escape(name)} -->\n```python\n(.*?)\n```", PAGE.read_text(), re.S)
    assert match is not None, f"{PAGE} has no file block {name}"
    return match.group(1) + "\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:  # the http.server interface's name
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    Receiver.received = []
    with serve_handler(Receiver) as origin:
        yield origin


def exported_spans() -> list[Any]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    spans = []
    for path, body in list(Receiver.received):
        if path == "/v1/traces":
            request = ExportTraceServiceRequest.FromString(body)
            spans += [s for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]
    return spans


def exported_metrics() -> set[str]:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

    names = set()
    for path, body in list(Receiver.received):
        if path == "/v1/metrics":
            request = ExportMetricsServiceRequest.FromString(body)
            names |= {m.name for r in request.resource_metrics for scope in r.scope_metrics for m in scope.metrics}
    return names


def answered(process: subprocess.Popen[bytes], port: int, headers: dict[str, str], log: Callable[[], object]) -> bool:
    """Whether the served file answers ``add(1, 2)`` yet (``log()``: its output, shown if it exited)."""
    assert process.poll() is None, log()
    body = (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
            b'"params": {"name": "add", "arguments": {"a": 1, "b": 2}}}')
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", body, {"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return b'"3' in response.read()
    except OSError:
        return False


def test_the_documented_server_exports_its_span_and_metrics_over_otlp(collector: str, tmp_path: Path) -> None:
    port = free_port()
    (tmp_path / "traced_server.py").write_text(file_block("traced_server.py").replace("8000", str(port)))
    env = {
        **os.environ,
        "MCP_PORT": str(port),  # (the file serves on $MCP_PORT, else 8000)
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector,
        "OTEL_BSP_SCHEDULE_DELAY": "50",
        "OTEL_METRIC_EXPORT_INTERVAL": "200",
    }
    env.pop("NANOHUBMCP_TRACING", None)
    process = subprocess.Popen(
        [sys.executable, "traced_server.py"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        headers = {"traceparent": TRACEPARENT}
        wait_until(lambda: answered(process, port, headers, lambda: process.stderr.read() if process.stderr else b""),
                   "the documented server answers")
        wait_until(lambda: any(s.name == "tools/call add" for s in exported_spans()), "the span is exported")
        wait_until(lambda: "mcp.server.operation.duration" in exported_metrics(), "the metric is exported")
    finally:
        process.terminate()
        process.wait(timeout=30)
    span = next(s for s in exported_spans() if s.name == "tools/call add")
    assert (span.trace_id.hex(), span.parent_span_id.hex()) == ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
    assert span.kind == 2  # SPAN_KIND_SERVER
    attributes = {a.key: a.value.string_value for a in span.attributes}
    assert (attributes["mcp.method.name"], attributes["gen_ai.tool.name"]) == ("tools/call", "add")


def test_the_console_set_up_prints_each_span_as_it_ends(tmp_path: Path) -> None:
    """Without a collector the page's file prints a call's span while it serves (trial9 D6: the page said
    "as they end" while the file batched them, printed seconds later or at exit). The batch delay is set
    beyond the wait, so a batching processor would fail this."""
    port = free_port()
    (tmp_path / "traced_server.py").write_text(file_block("traced_server.py").replace("8000", str(port)))
    env = {**os.environ, "MCP_PORT": str(port), "OTEL_BSP_SCHEDULE_DELAY": "600000", "PYTHONUNBUFFERED": "1"}
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "NANOHUBMCP_TRACING"):
        env.pop(name, None)
    output = tmp_path / "stdout.txt"
    with output.open("wb") as stream:
        process = subprocess.Popen([sys.executable, "traced_server.py"], cwd=tmp_path, env=env, stdout=stream,
                                   stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: answered(process, port, {}, output.read_bytes), "the documented server answers")
        wait_until(lambda: '"name": "tools/call add"' in output.read_text(), "the span printed while serving", 20)
        assert process.poll() is None
    finally:
        process.terminate()
        process.wait(timeout=30)
