"""Peak memory of a tool call whose numpy array is too large to inline (kept as a resource, or refused).

    .venv/bin/python bench/kept_peak.py                      # 1e7 and 5e7 floats, state dir and memory store
    .venv/bin/python bench/kept_peak.py --sizes 1e7,1e8 --stores sqlite
    .venv/bin/python bench/kept_peak.py --read --sizes 1e7           # resources/read of a kept array over HTTP
    .venv/bin/python bench/kept_peak.py --read --via legacy-sse      # ... its answer an event on GET /sse

Each measurement runs in a fresh process: an ``MCPServer`` (``max_inline_bytes`` and the kept limits at their
defaults) with one tool returning ``np.linspace(0, 1, n)``, called once through the in-memory client
(``nanohubmcp.testing``: the whole call path, no sockets) after a small warm-up call. The figures are the
process's RSS before the call and its peak (``ru_maxrss``) over the call; "over the array" is the peak less
the idle RSS and the array's own ``n * 8`` bytes, the memory the call's result handling took.

``--read``: a first process keeps ``np.linspace(0, 1, n)``'s JSON in a state dir (through the result store,
owned by nobody: readable by whoever holds the URI), a second one serves that state dir over Streamable
HTTP (``server.start``) and answers one sessionless ``resources/read`` of it, the answer read a megabyte at a
time by a client thread in the same process (so the client holds a megabyte, never the answer). "Over the
text" is the peak less the idle RSS and less nothing else: the kept text is not in the process before the read.
``--via``: how the answer goes: ``json`` (a JSON body, the default), ``post-sse`` (an SSE event on the POST's
response: a middleware sends a log message first, so the answer is a stream, and gives the request back the
mark the pipeline takes from middleware), ``legacy-sse`` (an event on the
legacy transport's ``GET /sse`` stream, the read POSTed to its endpoint); the client reads the stream a
megabyte at a time too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kb() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def one(n: int, store: str) -> dict[str, object]:
    """Measure one call in this process (run by the parent in a fresh one)."""
    import numpy as np

    from nanohubmcp import MCPServer
    from nanohubmcp.testing import in_memory

    with tempfile.TemporaryDirectory() as state:
        server = MCPServer("kept-peak", state_dir=state, job_store=store)

        @server.tool()
        def lin(n: int) -> object:
            """n values from 0 to 1."""
            return np.linspace(0, 1, n)

        with in_memory(server, timeout=600) as client:
            client.call_tool("lin", {"n": 100_000})  # imports, first uses, a first kept result
            idle = rss_kb()
            start = time.perf_counter()
            result = client.call_tool("lin", {"n": n})
            seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        link = next((b for b in result["content"] if b.get("type") == "resource_link"), None)
        outcome = f"kept, {link['size']:,} bytes" if link else "refused: " + result["content"][0]["text"][:90]
        return {"n": n, "store": store, "idle_kb": idle, "peak_kb": peak, "seconds": round(seconds, 2),
                "over_array_mb": round((peak - idle) / 1024 - n * 8 / 2**20), "outcome": outcome}


def keep(n: int, state: str) -> str:
    """Keep ``np.linspace(0, 1, n)``'s JSON in ``state``'s result store; its URI (run in a process of its own)."""
    import numpy as np

    from nanohubmcp.server.results.store import ResultStore

    values = np.linspace(0, 1, n)

    def parts() -> object:
        yield "["
        for start in range(0, n, 1 << 20):
            yield ("," if start else "") + json.dumps(values[start : start + (1 << 20)].tolist())[1:-1]
        yield "]"

    uri, _ = ResultStore(3600, 1 << 30, directory=lambda: state).keep_parts(parts, "application/json", ".json", None)
    return uri


def read(uri: str, state: str, via: str = "json") -> dict[str, object]:
    """Serve ``state`` over HTTP and read ``uri`` once (in this process) the ``via`` way; what it cost."""
    import http.client

    from nanohubmcp import MCPServer

    server = MCPServer("kept-peak", state_dir=state, max_kept_bytes=1 << 30)
    if via == "post-sse":

        @server.middleware
        async def log_first(request: object, call_next: object) -> dict[str, object]:
            from nanohubmcp.server.wire.request import STREAMS_TEXT

            context = request.context  # type: ignore[attr-defined]
            context.send_related({"jsonrpc": "2.0", "method": "notifications/message",
                                  "params": {"level": "info", "data": "reading"}})
            # The pipeline takes the mark away from the application's middleware (51fc2fc); given back, the
            # answer goes the SSE writer's piece-at-a-time way, as it would were the log message sent otherwise.
            context.slots[STREAMS_TEXT] = True
            return await call_next(request)  # type: ignore[operator, no-any-return]

    server.start(host="127.0.0.1", port=0)
    try:
        assert server.url is not None
        port = int(server.url.rstrip("/").rsplit(":", 1)[1].split("/")[0])
        stream = LegacyStream(port) if via == "legacy-sse" else None

        def ask(asked: str) -> tuple[int, bytes]:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": asked}})
            if stream is not None:
                return stream.ask(body)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            accept = "text/event-stream, application/json" if via == "post-sse" else "application/json"
            connection.request("POST", "/mcp", body, {"Content-Type": "application/json", "Accept": accept})
            response = connection.getresponse()
            size, head = 0, b""
            while chunk := response.read(1 << 20):
                size += len(chunk)
                head = head or chunk[:120]
            connection.close()
            return size, head

        ask("nanohubmcp://results/" + "A" * 32 + ".json")  # (imports and first uses: a "not found")
        idle = rss_kb()
        start = time.perf_counter()
        size, head = ask(uri)
        seconds = time.perf_counter() - start
    finally:
        server.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"idle_kb": idle, "peak_kb": peak, "seconds": round(seconds, 2), "answer_bytes": size,
            "head": head[:60].decode("utf-8", "replace")}


class LegacyStream:
    """A legacy HTTP+SSE session's ``GET /sse`` stream, read a megabyte at a time, and its endpoint."""

    def __init__(self, port: int) -> None:
        import http.client

        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.connection.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        self.rest = b""
        event = self.event()[1]
        self.endpoint = "/" + event.split(b"data: ", 1)[1].split(b"\n", 1)[0].decode().lstrip("./")

    def event(self) -> tuple[int, bytes]:
        """The next event's size and first bytes (it is read to its blank line, never held)."""
        size, head, data = 0, b"", self.rest
        while b"\n\n" not in data:
            size += len(data) - 1
            head = (head + data)[:120]
            data = data[-1:] + self.response.read1(1 << 20)  # (a blank line may straddle two reads)
        event, _, self.rest = data.partition(b"\n\n")
        return size + len(event) + 2, (head + event)[:120]

    def ask(self, body: str) -> tuple[int, bytes]:
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        connection.request("POST", self.endpoint, body, {"Content-Type": "application/json"})
        connection.getresponse().read()
        connection.close()
        return self.event()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e7,5e7", help="array sizes, comma-separated (floats)")
    parser.add_argument("--stores", default="sqlite,memory", help="job_store values to measure")
    parser.add_argument("--read", action="store_true", help="measure resources/read of a kept array over HTTP")
    parser.add_argument("--via", default="json", choices=["json", "post-sse", "legacy-sse"],
                        help="--read: the answer as a JSON body, an SSE event on the POST, or one on GET /sse")
    parser.add_argument("--one", nargs=2, metavar=("N", "STORE"), help=argparse.SUPPRESS)
    parser.add_argument("--keep-one", nargs=2, metavar=("N", "STATE"), help=argparse.SUPPRESS)
    parser.add_argument("--read-one", nargs=3, metavar=("URI", "STATE", "VIA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.keep_one:
        print(keep(int(float(args.keep_one[0])), args.keep_one[1]))
        return
    if args.read_one:
        print(json.dumps(read(*args.read_one)))
        return
    if args.one:
        print(json.dumps(one(int(float(args.one[0])), args.one[1])))
        return
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
    if args.read:
        print("| n | kept text | idle RSS | peak RSS | peak - idle | read | answer |")
        print("|---|---|---|---|---|---|---|")
        for size in args.sizes.split(","):
            with tempfile.TemporaryDirectory() as state:
                uri = subprocess.run([sys.executable, __file__, "--keep-one", size, state], env=env, check=True,
                                     capture_output=True, text=True).stdout.strip().splitlines()[-1]
                kept = os.path.getsize(os.path.join(state, "results", uri.rsplit("/", 1)[1]))
                out = subprocess.run([sys.executable, __file__, "--read-one", uri, state, args.via], env=env,
                                     check=True, capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            idle, peak = int(r["idle_kb"]) / 1024, int(r["peak_kb"]) / 1024
            print(f"| {float(size):.0e} | {kept / 1e6:.0f} MB | {idle:.0f} MB | {peak:.0f} MB | {peak - idle:.0f} MB | "
                  f"{r['seconds']} s | {int(r['answer_bytes']) / 1e6:.0f} MB |", flush=True)
        return
    print("| n | store | idle RSS | peak RSS | peak - idle | over the array | call | outcome |")
    print("|---|---|---|---|---|---|---|---|")
    for store in args.stores.split(","):
        for size in args.sizes.split(","):
            out = subprocess.run([sys.executable, __file__, "--one", size, store], env=env, check=True,
                                 capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            idle, peak = int(r["idle_kb"]) / 2**20, int(r["peak_kb"]) / 2**20
            print(f"| {float(size):.0e} | {store} | {idle:.2f} GB | {peak:.2f} GB | {peak - idle:.2f} GB | "
                  f"{r['over_array_mb']} MB | {r['seconds']} s | {r['outcome']} |", flush=True)


if __name__ == "__main__":
    main()
