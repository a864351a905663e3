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
The worker pool's inline lane is on (``inline_quick_calls=True``, off by default): ``add`` runs on the event loop,
as the ceiling and the peers run a trivial call.
Environment (set by mcpbench/instructions.py under valgrind): ``BENCH_READ_DISTRIBUTIONS=1`` reads the
installed distributions' table before serving; ``BENCH_NATIVE_PATH=1`` decides what the server decides by
the clock as a native run does (a quick sync tool stays on the event loop once it qualified; provenance
records are written in full batches); ``BENCH_LANE_REPORT=PATH`` writes where each sync tool ran at exit;
``BENCH_FILE_PER_WORKER=1`` gives each forked worker a state directory of its own (``<dir>/w<pid>``, for
bench/scaleout_instructions.py: its provenance records in a file of its own);
``BENCH_GC_REPORT=PATH`` times the cyclic collector's runs (gc.callbacks) and writes them per generation at exit
(bench/tail.py).
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

gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
gc_full: list[tuple[float, float, int, int]] = []  # gen-2 runs: (s since start, ms, objects collected, tracked after)
gc_t0 = time.perf_counter()
if os.environ.get("BENCH_GC_REPORT"):
    import gc

    def _timed(phase: str, info: dict[str, int], began: list[float] = [0.0]) -> None:  # noqa: B006
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            took = time.perf_counter() - began[0]
            gc_pauses[info["generation"]].append(took)
            if info["generation"] == 2:
                gc_full.append((round(began[0] - gc_t0, 2), round(took * 1e3, 2), info["collected"],
                                len(gc.get_objects(2))))

    gc.callbacks.append(_timed)

if os.environ.get("BENCH_FILE_PER_WORKER") == "1":
    _base = os.environ["NANOHUBMCP_STATE_DIR"]
    os.register_at_fork(
        after_in_child=lambda: os.environ.__setitem__("NANOHUBMCP_STATE_DIR", os.path.join(_base, f"w{os.getpid()}"))
    )

options = {}
if "inline_quick_calls" in inspect.signature(MCPServer).parameters:  # (a --tree from before it: the lane was on)
    options["inline_quick_calls"] = True  # the ceiling and the peers run a trivial call on the event loop
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
        try:
            from nanohubmcp.server.provenance import code_facts as facts
        except ImportError:  # a tree from before code_facts: the table was capture's
            from nanohubmcp.server.provenance import capture as facts

        facts._read_table()
    except (ImportError, AttributeError):  # a tree without it (--tree of an older checkout)
        pass
if os.environ.get("BENCH_NATIVE_PATH"):
    # Instruction counts (mcpbench/instructions.py): what our server decides by the clock is decided as in
    # a native run, whatever valgrind's pace (calls ~50x slower; a switch between threads, valgrind's one
    # lock, reads as a wait) and the host's load:
    # - the worker pool's time bounds made endless: a quick function qualifies after its first INLINE_AFTER
    #   pool calls (the warm-up's) and stays on the event loop, as natively when none of its calls is slow
    #   (the calls are still timed: the same instructions). Scaled by 50 instead (27dcdb0), a run now and
    #   then still sent `add` to the pool for good: ~1.15 M or ~1.29 M instructions a call;
    # - the provenance writer gathers until a batch is full (BATCH records), as it does natively at any
    #   rate over ~256 calls a second, instead of for 1 s: under valgrind 1 s held ~5-30 records, as many
    #   as the host's load let through, and the batch's fixed cost per record moved with it (+-25k a call).
    try:
        from nanohubmcp.server.calls import invoke, workers

        try:  # the inline call's bound lives in slow_calls (in workers in a checkout before 2026-12-03)
            from nanohubmcp.server.calls import slow_calls as bound
        except ImportError:
            bound = workers
        endless = [(workers, "INLINE_CPU_SECONDS"), (workers, "INLINE_WALL_SECONDS"), (workers, "QUICK_SECONDS"),
                   (bound, "INLINE_SECONDS"), (invoke, "INLINE_SECONDS")]
        for module, name in endless:
            getattr(module, name)  # every name there before any is set (setattr would make a missing one)
        for module, name in endless:
            setattr(module, name, float("inf"))
    except (ImportError, AttributeError):  # a tree without the inline lane (--tree of an older checkout)
        pass
    try:
        from nanohubmcp.server.provenance import writer

        writer.DELAY_SECONDS = threading.TIMEOUT_MAX
    except (ImportError, AttributeError):  # a tree without the batch writer
        pass
    # - the result cache's front reads the store's entry again once a second (cache_front.CHECK_SECONDS: a
    #   SELECT and the entry's last use written, ~100k instructions): natively once per ~1,500 hits at c=16
    #   (tens of instructions a hit), under valgrind once per ~20 calls (~4-5k a hit, more than the hit's own
    #   path saves over a call): made as rare as natively, i.e. not within a run.
    try:
        from nanohubmcp.server.provenance import cache_front

        cache_front.CHECK_SECONDS  # noqa: B018 - there before it is set (setattr would make a missing one)
        cache_front.CHECK_SECONDS = threading.TIMEOUT_MAX
    except (ImportError, AttributeError):  # a tree without the cache's front
        pass


def provenance_dropped() -> int | None:
    """Provenance items the writer dropped because too many waited (None: a tree without the batch writer)."""
    try:
        from nanohubmcp.server.provenance import writer
    except ImportError:
        return None
    return sum(each.dropped for each in list(writer._THREAD.writers))


def report_lanes(pool: object, path: str) -> None:
    """Write where each sync tool of ``pool`` (the worker pool that served) ran at the end
    ({name: "loop" | "pool" | "pool for good"}) and the collector's runs per generation ("gc collections")
    to ``path`` as JSON (``BENCH_LANE_REPORT``; read by mcpbench/instructions.py; nothing is counted per call)."""
    import gc
    import json

    timings = getattr(pool, "_timings", {})
    inline = getattr(pool, "inline_keys", set())
    report: dict[str, object] = {
        key: "loop" if key in inline else "pool for good" if getattr(t, "pool_only", False) else "pool"
        for key, t in timings.items()
    }
    report["gc collections"] = [generation["collections"] for generation in gc.get_stats()]
    with open(path, "w") as out:
        json.dump(report, out)


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
serving_pool = getattr(getattr(server, "core", None), "executor", None)  # stop() puts a fresh one in its place
server.run(host=opts.host, port=opts.port, quiet=True, token=opts.token, **workers)
if os.environ.get("BENCH_LANE_REPORT"):
    report_lanes(serving_pool, os.environ["BENCH_LANE_REPORT"])
if os.environ.get("BENCH_GC_REPORT"):
    import json

    with open(os.environ["BENCH_GC_REPORT"], "w") as out:
        json.dump({
            str(g): {"runs": len(p), "total_ms": round(sum(p) * 1e3, 2), "max_ms": round(max(p, default=0) * 1e3, 2),
                     "over_1ms": sum(x > 1e-3 for x in p)}
            for g, p in gc_pauses.items()
        } | {"full runs (s, ms, collected, gen-2 objects)": gc_full, "provenance dropped": provenance_dropped()}, out)
