"""The benchmark tool for bench/scaleout.py, served by ``nanohubmcp run`` (one or several workers,
memory or Redis state): ``add(a, b)``, as in servers/ours.py. ``SCALEOUT_PROVENANCE=0`` in the
environment turns the provenance records off; the inline lane is on (``inline_quick_calls=True``, as in
servers/ours.py) (to compare the state stores without them);
``SCALEOUT_FILE_PER_WORKER=1`` gives each forked worker a state directory of its own (its records in
a file of its own), ``=memory`` one it cannot make (its records kept in its memory).

``SCALEOUT_LANE_DIR=<dir>``: each serving process writes ``<dir>/<pid>`` every 0.2 s: whether
``add`` runs on the event loop (the worker pool's inline lane, 1/0), whether it was sent to the
pool for good (1/0), and how many inline calls sent it back so far. A call on the loop and one
handed to a pool thread and back differ by ~100 µs of CPU, so a cell's CPU per call depends on
which lane ``add`` was in (bench/scaleout.md)."""

from __future__ import annotations

import os
import threading
import time

from nanohubmcp import MCPServer


def _watch_lane(into: str) -> None:
    from nanohubmcp.server.calls import workers

    pools: list[workers.WorkerPool] = []
    sent_back = [0]
    init, too_slow = workers.WorkerPool.__init__, workers.WorkerPool.too_slow_inline

    def tracked_init(self: workers.WorkerPool, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)
        pools.append(self)

    def counted(self: workers.WorkerPool, *args: object, **kwargs: object) -> None:
        before = set(self.inline_keys)
        too_slow(self, *args, **kwargs)  # type: ignore[arg-type]
        sent_back[0] += len(before.difference(self.inline_keys))

    workers.WorkerPool.__init__ = tracked_init  # type: ignore[method-assign]
    workers.WorkerPool.too_slow_inline = counted  # type: ignore[method-assign]

    def write() -> None:
        while True:
            time.sleep(0.2)
            pool = next((p for p in pools if p._quick is not None), None)  # the tools' pool, not the jobs'
            if pool is None:
                continue
            inline = int(bool(pool.inline_keys))
            for_good = int(any(t.pool_only for t in list(pool._timings.values())))
            path = os.path.join(into, str(os.getpid()))
            with open(path + ".tmp", "w") as out:
                out.write(f"{inline} {for_good} {sent_back[0]}\n")
            os.replace(path + ".tmp", path)

    # The writer runs in each serving process: started with the first pool, again in each forked worker.
    os.register_at_fork(after_in_child=lambda: threading.Thread(target=write, daemon=True).start())
    threading.Thread(target=write, daemon=True).start()


if os.environ.get("SCALEOUT_FILE_PER_WORKER") in ("1", "memory"):
    # each forked worker a state directory of its own (its provenance records in a file of its own), or
    # ("memory") one it cannot make: its records are then kept in its memory (made, never written to a file)
    _base = os.environ["NANOHUBMCP_STATE_DIR"] if os.environ["SCALEOUT_FILE_PER_WORKER"] == "1" else "/proc/self/none"
    os.register_at_fork(
        after_in_child=lambda: os.environ.__setitem__("NANOHUBMCP_STATE_DIR", os.path.join(_base, f"w{os.getpid()}"))
    )

if os.environ.get("SCALEOUT_LANE_DIR"):  # before the server is made: it makes its pool
    _watch_lane(os.environ["SCALEOUT_LANE_DIR"])

server = MCPServer("bench-scaleout", provenance=os.environ.get("SCALEOUT_PROVENANCE", "1") != "0",
                   inline_quick_calls=True)  # (the ceiling and the peers run a trivial call on the loop)


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b
