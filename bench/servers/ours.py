"""nanohubmcp (this repository) serving the two benchmark tools. Run it with the repo's .venv python.

``add(a, b)`` answers the throughput load; ``big(n)`` returns ``n`` characters (the 1 MB result);
``--token T`` requires the bearer token T on every request.
``add_progress`` reports progress first, so a client accepting SSE gets an SSE-framed answer.
``add_cached`` is ``add`` registered with ``cache=True`` (a repeated call is a cache hit).
``--tree DIR`` imports nanohubmcp from another checkout (an earlier commit, for a before/after run);
``--tracing`` turns OpenTelemetry on with the SDK, an in-memory span exporter and metric reader;
``--no-provenance`` turns the provenance records off (on by default);
``--state-url URL`` keeps the sessions in a shared store (Redis; bench/scaleout.py), ``--lease S``
sets how long a process serves a session's record from its copy (valgrind runs calls ~50x slower),
``--workers N`` serves from N processes (with ``--state-url``).
Environment (set by mcpbench/instructions.py under valgrind): ``BENCH_READ_DISTRIBUTIONS=1`` reads the
installed distributions' table before serving; ``BENCH_SLOWDOWN=F`` scales the worker pool's time bounds by F.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import time

from _args import parse

opts = parse(extra=("tracing", "no-provenance"), values=("token", "tree", "state-url", "lease", "workers"))
if opts.tree:
    sys.path.insert(0, opts.tree)

if opts.tracing:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))

    def forget() -> None:  # the exporter keeps every span: empty it now and then
        while True:
            time.sleep(0.5)
            exporter.clear()

    threading.Thread(target=forget, daemon=True).start()

from nanohubmcp import MCPServer  # noqa: E402

options = {}
if opts.tracing:
    options["tracing"] = True
if opts.no_provenance:
    options["provenance"] = False
if opts.state_url:
    options["state_url"] = opts.state_url
if opts.lease:
    from nanohubmcp.state import redis_sessions

    redis_sessions.LEASE_SECONDS = float(opts.lease)
server = MCPServer("bench", **options)
if os.environ.get("BENCH_READ_DISTRIBUTIONS"):
    # Instruction counts (mcpbench/instructions.py): the provenance layer's one-off background read of the
    # installed distributions' table (~0.3 s CPU, once per process) done before serving, so that it falls
    # in neither or both of the two runs whose difference is a call's cost.
    try:
        from nanohubmcp.server.provenance import capture

        capture._read_table()
    except (ImportError, AttributeError):  # a tree without it (--tree of an older checkout)
        pass
if os.environ.get("BENCH_SLOWDOWN"):
    # Instruction counts (mcpbench/instructions.py): under valgrind every call runs tens of times slower,
    # so the worker pool's time bounds are scaled alike and it decides as in a native run (a quick
    # function runs on the event loop). Unscaled, a trivial tool sat near the bounds: some runs counted
    # the loop's path, some the pool's (~1.15 M and ~1.35 M instructions a call, minutes apart).
    factor = float(os.environ["BENCH_SLOWDOWN"])
    try:
        from nanohubmcp.server.calls import invoke, workers

        for name in ("INLINE_CPU_SECONDS", "INLINE_WALL_SECONDS", "INLINE_SECONDS", "QUICK_SECONDS"):
            setattr(workers, name, getattr(workers, name) * factor)
        invoke.INLINE_SECONDS = workers.INLINE_SECONDS
    except (ImportError, AttributeError):  # a tree without the inline lane (--tree of an older checkout)
        pass


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


@server.tool()
def add_progress(a: float, b: float, ctx) -> float:
    """Sum of two numbers, after one progress notification (SSE-framed when the client allows)."""
    ctx.report_progress(1, 1)
    return a + b


@server.tool()
def big(n: int) -> str:
    """A text of n characters."""
    return "x" * n


# an earlier checkout may not know cache=: add_cached is then a plain add (never measured there)
cached = {"cache": True} if "cache" in inspect.signature(server.tool).parameters else {}


@server.tool(**cached)
def add_cached(a: float, b: float) -> float:
    """Sum of two numbers; a repeated call with the same arguments is answered from the result cache."""
    return a + b


# --token: every request must carry "Authorization: Bearer <token>" ("" = no authorization)
workers = {"workers": int(opts.workers)} if opts.workers else {}  # a --tree before --workers existed has no such option
server.run(host=opts.host, port=opts.port, quiet=True, token=opts.token, **workers)
