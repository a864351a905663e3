"""A large body's parse with orjson (the ``fast`` extra) and without: its CPU and wall time, and how long
a concurrent ``/healthz`` waits while one such body is served.

    .venv/bin/python bench/large_body_parse.py [--pairs 10]

Three bodies, each a ``ping`` whose ``params`` hold the data (user trial S7): about 10 MB of floats,
12 MB of small records (ints, strings, booleans, a short array), 8 MB of one object's keys.

- parse: ``jsonrpc.parse_body(body, large=True)`` in this process, orjson switched on and off
  (``accelerator.use_accelerator``) in alternating order, ``pairs`` times each;
- served: two servers (``MCPServer``, provenance off), one with orjson switched off; per pair one POST
  to each, in alternating order, while a thread GETs ``/healthz`` every 20 ms on the same server on a
  keep-alive connection: the POST's wall time and the longest ``/healthz`` answer time during it.

Medians (and the maximum of the longest waits). Not a test: nothing asserts a figure. Figures go
to ``docs/api/http.md`` (the worker-thread parse).
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = """
import sys
from nanohubmcp import MCPServer
from nanohubmcp.protocol import accelerator
accelerator.use_accelerator(sys.argv[2] == "orjson")
server = MCPServer("bench", provenance=False, state_dir=sys.argv[3])
server.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def bodies() -> dict[str, bytes]:
    rng = random.Random(1)
    params = {
        "floats": {"xs": [rng.random() * 1000 for _ in range(560_000)]},
        "records": {"rows": [{"id": i, "name": f"item{i}", "ok": True, "tags": ["a", "b"]} for i in range(200_000)]},
        "keys": {f"k{i}": i for i in range(500_000)},
    }
    return {kind: json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": value},
                             separators=(",", ":")).encode() for kind, value in params.items()}


def parse_times(body: bytes, pairs: int) -> dict[str, list[tuple[float, float]]]:
    from nanohubmcp.protocol import accelerator, jsonrpc

    times: dict[str, list[tuple[float, float]]] = {"stdlib": [], "orjson": []}
    for n in range(pairs):
        for way in ("orjson", "stdlib") if n % 2 == 0 else ("stdlib", "orjson"):
            accelerator.use_accelerator(way == "orjson")
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            jsonrpc.parse_body(body, large=True)
            times[way].append((time.perf_counter() - wall, time.process_time() - cpu))
    accelerator.use_accelerator(True)
    return times


def served(port: int, body: bytes) -> tuple[float, float]:
    stop, waits = threading.Event(), []

    def poll() -> None:
        health = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not stop.is_set():
            started = time.perf_counter()
            health.request("GET", "/healthz")
            health.getresponse().read()
            waits.append(time.perf_counter() - started)
            stop.wait(0.02)
        health.close()

    poller = threading.Thread(target=poll)
    poller.start()
    while not waits:
        time.sleep(0.005)
    post = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    post.request("POST", "/mcp", body, {"Content-Type": "application/json", "Accept": "application/json"})
    answer = json.loads(post.getresponse().read())
    wall = time.perf_counter() - started
    post.close()
    assert answer.get("result") == {}, answer
    time.sleep(0.1)  # a few more answers after the POST's: the poller's last wait is counted
    stop.set()
    poller.join()
    return wall, max(waits)


def start(port: int, way: str, folder: str) -> subprocess.Popen[bytes]:
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), way, f"{folder}/{way}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit(f"the {way} server did not answer /healthz in 60 s")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--pairs", type=int, default=10)
    options.add_argument("--ports", type=int, nargs=2, default=(8771, 8772))
    args = options.parse_args()
    sys.path.insert(0, str(ROOT))
    made = bodies()
    for kind, body in made.items():
        times = parse_times(body, args.pairs)
        for way in ("stdlib", "orjson"):
            walls, cpus = [t[0] for t in times[way]], [t[1] for t in times[way]]
            print(f"parse  {kind:8} {len(body) / 1e6:5.1f} MB {way}: wall {statistics.median(walls):.3f} s, "
                  f"CPU {statistics.median(cpus):.3f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="large-body-parse-") as folder:
        ways = zip(("orjson", "stdlib"), args.ports, strict=True)
        servers = {way: (port, start(port, way, folder)) for way, port in ways}
        try:
            for kind, body in made.items():
                runs: dict[str, list[tuple[float, float]]] = {"stdlib": [], "orjson": []}
                for n in range(args.pairs):
                    for way in ("orjson", "stdlib") if n % 2 == 0 else ("stdlib", "orjson"):
                        runs[way].append(served(servers[way][0], body))
                for way in ("stdlib", "orjson"):
                    posts, waits = [r[0] for r in runs[way]], [r[1] for r in runs[way]]
                    print(f"served {kind:8} {way}: POST {statistics.median(posts):.2f} s, longest /healthz wait "
                          f"{statistics.median(waits):.2f} s (max {max(waits):.2f})", flush=True)
        finally:
            for _, server in servers.values():
                server.terminate()
                server.wait(10)


if __name__ == "__main__":
    main()
