#!/usr/bin/env python3
"""CPU per ``tools/call`` with OpenTelemetry tracing on (the SDK, an in-memory span exporter and an
in-memory metric reader: every span and measurement is recorded) against tracing off.

    .venv/bin/python bench/otel_cost.py                    # both measurements, ~2 min
    .venv/bin/python bench/otel_cost.py --only http --rounds 5 --calls 1000 --json /tmp/otel.json
    .venv/bin/python bench/otel_cost.py --only sdk         # the floor: one SDK span, one measurement
    .venv/bin/python bench/otel_cost.py --instructions     # the same in instructions (valgrind), ~10 min

Two measurements, each interleaving the modes round by round so machine noise hits them alike, and
keeping the fastest round (on a shared machine, the least disturbed one):

- ``core``: in this process, no sockets: each call is parsed, given its request context and served
  by ``Connection.serve`` on one event loop (the path every transport hands a message to), for an
  ``async def`` tool (the cheapest call there is: the worst case for a fixed per-call cost) and a
  plain ``def`` tool (run on the worker pool, as most tools are). CPU time of this process.
- ``http``: a server process per mode (``MCPServer.run``) answering sessionless ``POST /mcp``
  ``tools/call`` of a ``def`` tool from one keep-alive client in this process; the server
  process's CPU time (``/proc/<pid>/stat``) per call. Three modes: ``off``; ``on`` (the SDK with a
  ``SimpleSpanProcessor``: each span exported as it ends, on the call's thread — what issue 28
  names); ``batch`` (a ``BatchSpanProcessor``, what a deployment configures: spans exported in
  batches from the SDK's own thread).

``--instructions`` counts the same in instructions (valgrind ``exp-bbv``, every thread of the
process, ``PYTHONHASHSEED=0``; each count twice, with ``--low`` and ``--high`` calls, the
difference divided by the difference of calls): the ``http`` servers of the three modes, a ``def``
tool in the core (``off``/``on``), and the SDK's floor — one SERVER span with the 8 attributes of a
traced ``tools/call`` made current and ended, plus one histogram measurement with its 6
attributes: what any server following the MCP conventions pays per call with this SDK set-up.

With tracing on, a ``tools/call`` makes one span (SERVER) and one histogram measurement; its steps
are child spans only with ``NANOHUBMCP_TRACING_STEP_MS`` set.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODES = ("off", "on")
HTTP_MODES = ("off", "on", "batch")

SDK = """
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor((BatchSpanProcessor if PROCESSOR == "batch" else SimpleSpanProcessor)(EXPORTER))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
"""

SERVER = """
import sys, threading, time
mode, port = sys.argv[1], int(sys.argv[2])
if mode != "off":
    PROCESSOR = mode
{sdk}
    def forget():  # the exporter keeps every span: empty it now and then
        while True:
            time.sleep(0.5)
            EXPORTER.clear()
    threading.Thread(target=forget, daemon=True).start()
from nanohubmcp import MCPServer
server = MCPServer("otel-cost", job_store="memory", tracing=(mode != "off"))

@server.tool()
def add(a: float, b: float) -> float:
    \"\"\"Add two numbers.\"\"\"
    return a + b

@server.tool()
async def add_async(a: float, b: float) -> float:
    \"\"\"Add two numbers, on the event loop.\"\"\"
    return a + b

server.run(host="127.0.0.1", port=port)
"""

ASYNC_BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add_async", "arguments": {"a": 1, "b": 2}}}
).encode()
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
    namespace: dict[str, Any] = {"PROCESSOR": "on"}
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


def start(
    mode: str, prefix: tuple[str, ...] = (), wait: float = 60
) -> tuple[subprocess.Popen[bytes], http.client.HTTPConnection]:
    """A server process of ``mode`` (``prefix``: e.g. valgrind's command line) and a keep-alive
    connection to it that has made one call."""
    port = free_port()
    code = SERVER.format(sdk="\n".join("    " + line for line in SDK.strip().splitlines()))
    env = {k: v for k, v in os.environ.items() if k not in ("NANOHUBMCP_TRACING", "NANOHUBMCP_TRACING_STEP_MS")}
    process = subprocess.Popen(
        [*prefix, sys.executable, "-c", code, mode, str(port)],
        cwd=ROOT,
        env={**env, "PYTHONHASHSEED": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + wait
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
            post(connection)
            return process, connection
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError(f"the {mode} server did not start") from None
            time.sleep(0.05)


def post(connection: http.client.HTTPConnection, body: bytes = BODY) -> None:
    connection.request("POST", "/mcp", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    assert response.status == 200, answer
    assert b'"result"' in answer, answer


def over_http(calls: int, rounds: int) -> dict[str, float]:
    servers = {f"http def tool, tracing {mode}": start(mode) for mode in HTTP_MODES}
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


# -- instructions: valgrind ---------------------------------------------------------------------
WARMUP = 50
SPAN_ATTRIBUTES = {  # a traced tools/call in a session over HTTP: the SERVER span's 8 attributes
    "mcp.method.name": "tools/call",
    "mcp.protocol.version": "2025-11-25",
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "gen_ai.tool.name": "add",
    "gen_ai.operation.name": "execute_tool",
    "mcp.session.id": "0123456789abcdef0123456789abcdef",
    "jsonrpc.request.id": "7",
}
METRIC_ATTRIBUTES = dict(list(SPAN_ATTRIBUTES.items())[:6])  # mcp.server.operation.duration's


def valgrind(log: Path) -> tuple[str, ...]:
    return ("valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={log}.bbv", f"--log-file={log}")


def total(log: Path) -> int:
    """The instructions of every thread of a process counted by exp-bbv (one line per thread)."""
    counts = [int(n) for n in re.findall(r"Total instructions:\s+(\d+)", log.read_text(errors="replace"))]
    if not counts:
        raise RuntimeError(f"no instruction count in {log}")
    return sum(counts)


def counted_http(mode: str, calls: int, body: bytes = BODY) -> int:
    """Instructions of a whole ``mode`` server process that answered ``WARMUP + calls`` calls."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        process, connection = start(mode, valgrind(log), wait=600)
        try:
            for _ in range(WARMUP + calls):
                post(connection, body)
        finally:
            connection.close()
            process.send_signal(signal.SIGTERM)  # valgrind writes its counts as the process ends
            process.wait(600)
        return total(log)


def counted_here(what: str, calls: int) -> int:
    """Instructions of this script run under valgrind with ``--count what calls``."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        env = {k: v for k, v in os.environ.items() if k not in ("NANOHUBMCP_TRACING", "NANOHUBMCP_TRACING_STEP_MS")}
        argv = [*valgrind(log), sys.executable, __file__, "--count", what, "--calls", str(calls)]
        subprocess.run(argv, cwd=ROOT, env={**env, "PYTHONHASHSEED": "0"}, check=True, stdout=subprocess.DEVNULL)
        return total(log)


FLOOR_PARTS = {  # --count name: what the SDK alone is asked per call
    "sdk": "sdk floor: SERVER span + histogram",
    "sdk-span": "sdk floor, part: span (no attributes) started and ended",
    "sdk-span-attributes": "sdk floor, part: span with the 8 attributes",
    "sdk-measurement": "sdk floor, part: measurement (no attributes)",
    "sdk-measurement-attributes": "sdk floor, part: measurement with the 6 attributes",
}
"""The floor (``sdk``: a traced session call's SERVER span with its 8 attributes, made current,
one measurement with its 6 attributes inside it — so with an exemplar — then ended) and its parts
alone, each outside any span (no exemplar): what the whole costs above the parts' sum is making the
span current and the exemplar."""


def floor_step(what: str) -> Any:
    """One call's worth of SDK work for ``--count what`` (a key of :data:`FLOOR_PARTS`)."""
    from opentelemetry import context, metrics, trace
    from opentelemetry.trace import SpanKind

    tracer = trace.get_tracer("otel-cost")
    histogram = metrics.get_meter("otel-cost").create_histogram("otel-cost", unit="s")

    def whole() -> None:
        span = tracer.start_span("tools/call add", kind=SpanKind.SERVER, attributes=SPAN_ATTRIBUTES)
        token = context.attach(trace.set_span_in_context(span))
        histogram.record(0.001, METRIC_ATTRIBUTES)
        span.end()
        context.detach(token)

    def span(attributes: dict[str, str] | None) -> None:
        tracer.start_span("tools/call add", kind=SpanKind.SERVER, attributes=attributes).end()

    return {
        "sdk": whole,
        "sdk-span": functools.partial(span, None),
        "sdk-span-attributes": functools.partial(span, SPAN_ATTRIBUTES),
        "sdk-measurement": functools.partial(histogram.record, 0.001),
        "sdk-measurement-attributes": functools.partial(histogram.record, 0.001, METRIC_ATTRIBUTES),
    }[what]


def count(what: str, calls: int) -> None:
    """``--count``: what is counted under valgrind (after the same warm-up in every run)."""
    if what.startswith("sdk"):
        namespace: dict[str, Any] = {"PROCESSOR": "on"}
        exec(SDK, namespace)
        step = floor_step(what)
        for n in range(WARMUP + calls):  # what a traced call pays the SDK, nothing of ours
            step()
            if n % 1000 == 0:
                namespace["EXPORTER"].clear()
        return

    async def served() -> None:
        namespace: dict[str, Any] = {"PROCESSOR": "on"}
        exec(SDK, namespace)
        server = build(what.removeprefix("core-"), True)
        await time_calls(server, WARMUP)
        await time_calls(server, calls)
        server.core.close()

    asyncio.run(served())


def instructions(low: int, high: int, only: str | None = None) -> dict[str, float]:
    """Instructions per call: each count with ``low`` and with ``high`` calls, the difference
    divided by ``high - low`` (start-up, warm-up and shut-down cancel out); ``only``: the ``http``,
    ``core`` or ``sdk`` ways alone."""
    # The async def tool's calls always run on the loop. The def tool's may run there too (the
    # pool's inline lane), decided by timings that valgrind's slowness moves: its counts can
    # include a worker hand-over per call in one run and not in the next.
    ways: dict[str, Any] = {
        f"http async def tool, tracing {mode}": functools.partial(counted_http, mode, body=ASYNC_BODY)
        for mode in HTTP_MODES
    }
    ways |= {f"http def tool, tracing {mode}": functools.partial(counted_http, mode) for mode in HTTP_MODES}
    ways.update({f"core def tool, tracing {mode}": functools.partial(counted_here, f"core-{mode}") for mode in MODES})
    ways.update({name: functools.partial(counted_here, what) for what, name in FLOOR_PARTS.items()})
    figures = {}
    for name, way in ways.items():
        if only is not None and not name.startswith(only):
            continue
        figures[name] = (way(high) - way(low)) / (high - low)
        print(f"{name:<40} {figures[name]:12,.0f} instructions per call", file=sys.stderr)
    return figures


# -- sdk: the floor, the SDK alone ----------------------------------------------------------------
def sdk_alone(calls: int) -> dict[str, float]:
    """CPU µs of one span started and ended (bare, and with 8 attributes) and of one histogram
    measurement with 6 attributes, through the SDK set up as above, nothing of ours."""
    namespace: dict[str, Any] = {"PROCESSOR": "on"}
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
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead")
    parser.add_argument("--low", type=int, default=100, help="calls of the first count (--instructions)")
    parser.add_argument("--high", type=int, default=300, help="calls of the second count (--instructions)")
    parser.add_argument("--count", help=argparse.SUPPRESS)  # one counted run: core-off, core-on, sdk
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    figures: dict[str, float] = {}
    if args.count:
        count(args.count, args.calls)
        return
    if args.only == "sdk" and not args.instructions:
        for name, value in sdk_alone(args.calls * 10).items():
            print(f"{name:<26} {value:8.1f} us")
        return
    unit = "instr" if args.instructions else "us"
    if args.instructions:
        figures.update(instructions(args.low, args.high, args.only))
    else:
        if args.only in (None, "core"):
            figures.update(asyncio.run(core(args.calls, args.rounds)))
        if args.only in (None, "http"):
            figures.update(over_http(args.calls, args.rounds))
    print(f"{'path':<30} {'off ' + unit:>11} {'mode':>6} {'on ' + unit:>11} {'on/off':>7} {'+' + unit:>9}")
    for name in [n for n in figures if n.endswith("off")]:
        path = name.rsplit(", tracing", 1)[0]
        off = figures[name]
        for mode in ("on", "batch"):
            if f"{path}, tracing {mode}" in figures:
                on = figures[f"{path}, tracing {mode}"]
                print(f"{path:<30} {off:11,.1f} {mode:>6} {on:11,.1f} {on / off:7.2f} {on - off:+9,.1f}")
    for name in [n for n in figures if n.startswith("sdk")]:
        print(f"{name:<30} {figures[name]:11,.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({k: round(v, 1) for k, v in figures.items()}, indent=2))


if __name__ == "__main__":
    main()
