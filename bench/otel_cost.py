#!/usr/bin/env python3
"""CPU per ``tools/call`` with OpenTelemetry tracing on (the SDK, an in-memory span exporter and an
in-memory metric reader: every span and measurement is recorded) against tracing off.

    .venv/bin/python bench/otel_cost.py                    # both measurements, ~2 min
    .venv/bin/python bench/otel_cost.py --only http --rounds 5 --calls 1000 --json /tmp/otel.json
    .venv/bin/python bench/otel_cost.py --only sdk         # the floor: one SDK span, one measurement

Two measurements, each interleaving the modes round by round so machine noise hits them alike, and
keeping the fastest round (on a shared machine, the least disturbed one):

- ``core``: in this process, no sockets: each call is parsed, given its request context and served
  by ``Connection.serve`` on one event loop (the path every transport hands a message to), for an
  ``async def`` tool (the cheapest call there is: the worst case for a fixed per-call cost) and a
  plain ``def`` tool (run on the worker pool, as most tools are). CPU time of this process.
- ``http``: a server process per mode (``MCPServer.run``) answering sessionless ``POST /mcp``
  ``tools/call`` of a ``def`` tool from one keep-alive client in this process; the server
  process's CPU time (``/proc/<pid>/stat``) per call.

With tracing on, a ``tools/call`` makes four spans (the SERVER span; ``validate_arguments``,
``execute_tool``, ``convert_result``) and one histogram measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODES = ("off", "on")

SDK = """
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
"""

SERVER = """
import sys, threading, time
mode, port = sys.argv[1], int(sys.argv[2])
if mode == "on":
{sdk}
    def forget():  # the exporter keeps every span: empty it now and then
        while True:
            time.sleep(0.5)
            EXPORTER.clear()
    threading.Thread(target=forget, daemon=True).start()
from nanohubmcp import MCPServer
server = MCPServer("otel-cost", job_store="memory", tracing=(mode == "on"))

@server.tool()
def add(a: float, b: float) -> float:
    \"\"\"Add two numbers.\"\"\"
    return a + b

server.run(host="127.0.0.1", port=port)
"""

BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
).encode()


# -- core: in this process ------------------------------------------------------------------------
def build(mode: str, sync: bool) -> Any:
    from nanohubmcp import MCPServer

    server = MCPServer("otel-cost", job_store="memory", tracing=(mode == "on"))
    if sync:

        @server.tool()
        def add(a: float, b: float) -> float:
            """Add two numbers."""
            return a + b
    else:

        @server.tool()
        async def add(a: float, b: float) -> float:  # type: ignore[misc]
            """Add two numbers."""
            return a + b

    return server


async def time_calls(server: Any, calls: int) -> float:
    """CPU seconds of this process for ``calls`` sessionless ``tools/call`` served one after another."""
    from nanohubmcp.server.connection import Connection

    connection = Connection(server.core, "bench")
    started = time.process_time()
    for _ in range(calls):
        message = connection.parse(BODY)
        reply = await connection.serve(connection.request(message, version="2025-03-26"))  # type: ignore[arg-type]
        assert reply.message is not None
        assert "result" in reply.message, reply.message
    return time.process_time() - started


async def core(calls: int, rounds: int) -> dict[str, float]:
    namespace: dict[str, Any] = {}
    exec(SDK, namespace)  # the application's SDK set-up; servers with tracing=False ignore it
    exporter = namespace["EXPORTER"]
    servers = {
        f"{kind}, tracing {mode}": build(mode, kind == "def tool")
        for kind in ("async def tool", "def tool")
        for mode in MODES
    }
    for server in servers.values():
        await time_calls(server, 200)  # warm up (and the tracing layer installed at the first call)
    assert all((s.core.telemetry is not None) == name.endswith("on") for name, s in servers.items())
    samples: dict[str, list[float]] = {name: [] for name in servers}
    for _ in range(rounds):
        for name, server in servers.items():
            samples[name].append(await time_calls(server, calls) / calls * 1e6)
            exporter.clear()
    for server in servers.values():
        server.core.close()
    return {name: min(values) for name, values in samples.items()}


# -- http: a server process per mode ------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def start(mode: str) -> tuple[subprocess.Popen[bytes], http.client.HTTPConnection]:
    port = free_port()
    code = SERVER.format(sdk="\n".join("    " + line for line in SDK.strip().splitlines()))
    env = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_TRACING"}
    process = subprocess.Popen(
        [sys.executable, "-c", code, mode, str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            post(connection)
            return process, connection
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError(f"the {mode} server did not start") from None
            time.sleep(0.05)


def post(connection: http.client.HTTPConnection) -> None:
    connection.request("POST", "/mcp", BODY, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    assert response.status == 200, answer
    assert b'"result"' in answer, answer


def over_http(calls: int, rounds: int) -> dict[str, float]:
    servers = {f"http def tool, tracing {mode}": start(mode) for mode in MODES}
    try:
        for _, connection in servers.values():
            for _ in range(200):
                post(connection)  # warm up
        samples: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(rounds):
            for name, (process, connection) in servers.items():
                before = cpu_seconds(process.pid)
                for _ in range(calls):
                    post(connection)
                samples[name].append((cpu_seconds(process.pid) - before) / calls * 1e6)
    finally:
        for process, connection in servers.values():
            connection.close()
            process.terminate()
            process.wait(30)
    return {name: min(values) for name, values in samples.items()}


# -- sdk: the floor, the SDK alone ----------------------------------------------------------------
def sdk_alone(calls: int) -> dict[str, float]:
    """CPU µs of one span started and ended (bare, and with 8 attributes) and of one histogram
    measurement with 6 attributes, through the SDK set up as above, nothing of ours."""
    namespace: dict[str, Any] = {}
    exec(SDK, namespace)
    from opentelemetry import metrics, trace

    tracer = trace.get_tracer("otel-cost")
    histogram = metrics.get_meter("otel-cost").create_histogram("otel-cost", unit="s")
    attributes = {f"key.{n}": f"value {n}" for n in range(8)}

    def bare() -> None:
        with tracer.start_as_current_span("bare"):
            pass

    def attributed() -> None:
        with tracer.start_as_current_span("attributed", attributes=attributes):
            pass

    def measured() -> None:
        histogram.record(0.1, dict(list(attributes.items())[:6]))

    figures = {}
    for name, step in (("sdk: span", bare), ("sdk: span, 8 attributes", attributed), ("sdk: histogram", measured)):
        started = time.process_time()
        for _ in range(calls):
            step()
        figures[name] = (time.process_time() - started) / calls * 1e6
        namespace["EXPORTER"].clear()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--only", choices=("core", "http", "sdk"))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    figures: dict[str, float] = {}
    if args.only == "sdk":
        for name, value in sdk_alone(args.calls * 10).items():
            print(f"{name:<26} {value:8.1f} us")
        return
    if args.only in (None, "core"):
        figures.update(asyncio.run(core(args.calls, args.rounds)))
    if args.only in (None, "http"):
        figures.update(over_http(args.calls, args.rounds))
    print(f"{'path':<26} {'off us/call':>11} {'on us/call':>11} {'on/off':>7} {'+us':>7}")
    for name in [n for n in figures if n.endswith("off")]:
        path = name.rsplit(", tracing", 1)[0]
        off, on = figures[name], figures[f"{path}, tracing on"]
        print(f"{path:<26} {off:11.1f} {on:11.1f} {on / off:7.2f} {on - off:+7.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
