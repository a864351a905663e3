"""A server with cached tools, run as a real subprocess so a test can stop it and start it again
on the same state directory (``python cache_server.py STATE_DIR COUNTS_FILE``; ``CACHE_SERVER_TTL``:
the ``stamped`` tool's ``cache_ttl``).

Every run of a tool's function appends a line to COUNTS_FILE (the tool's name), so a test counts
runs across processes without asking the server.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BANNER = re.compile(r"listening on [^\s:]+:(?P<port>\d+)")


def main() -> None:
    from nanohubmcp import MCPServer

    state_dir, counts = sys.argv[1], sys.argv[2]
    server = MCPServer("cached", state_dir=state_dir, cache_max_bytes=32768)  # an owner's share: 4096
    gate = threading.Event()

    def ran(name: str) -> None:
        with open(counts, "a") as handle:
            handle.write(name + "\n")

    @server.tool(cache=True)
    def simulate(temperature: float, steps: int = 10) -> dict[str, float]:
        """A slow simulation (here: a sum), cached per caller."""
        ran("simulate")
        return {"energy": temperature * steps}

    @server.tool(cache="shared")
    def slow_constant(name: str) -> dict[str, str]:
        """Waits for the gate (set by release_gate), then answers; results shared by all callers."""
        ran("slow_constant")
        gate.wait(30)
        return {"name": name, "value": "42"}

    arrived = [0]

    async def count_arrivals(request: Any, call_next: Any) -> Any:
        # Outside every layer (the cache's too): opens the gate once three calls of slow_constant
        # arrived, so the later two are sure to find the first one running.
        if request.tool_name == "slow_constant":
            arrived[0] += 1
            if arrived[0] == 3:
                gate.set()
        return await call_next(request)

    server.core.dispatcher.pipeline.wrap(count_arrivals)

    @server.tool(cache="shared")
    def table(n: int) -> list[int]:
        """The first n squares (results shared by all callers)."""
        ran("table")
        return [i * i for i in range(n)]

    @server.tool(cache=True)
    def blob(size: int, tag: str) -> str:
        """A string of ``size`` characters (for eviction by bytes)."""
        ran("blob")
        return tag * size

    @server.tool(cache="shared", cache_ttl=float(os.environ.get("CACHE_SERVER_TTL", "3600")))
    def stamped(x: int) -> dict[str, float]:
        """When it ran (shared by all callers, cached for CACHE_SERVER_TTL seconds, 3600 unless set)."""
        ran("stamped")
        return {"x": x, "at": time.time()}

    server.run(host="127.0.0.1", port=0)


class CacheServer:
    """The server in a subprocess on a free port; ``url`` ends with a slash."""

    def __init__(self, state_dir: Path, counts: Path, ttl: float | None = None) -> None:
        self.counts = counts
        env = {**os.environ, **({"CACHE_SERVER_TTL": str(ttl)} if ttl is not None else {})}
        self.process = subprocess.Popen(
            [sys.executable, "-u", str(HERE / "cache_server.py"), str(state_dir), str(counts)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 60
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the cache server exited ({self.process.wait()})")
            found = BANNER.search(line)
            if found:
                self.url = f"http://127.0.0.1:{found['port']}/"
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the cache server did not start")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for _ in self.process.stdout:
            pass

    def runs(self, name: str) -> int:
        """How many times ``name``'s function ran (in every process on this counts file)."""
        if not self.counts.exists():
            return 0
        return sum(1 for line in self.counts.read_text().splitlines() if line == name)

    def stop(self) -> Any:
        self.process.terminate()
        return self.process.wait(30)


if __name__ == "__main__":
    main()
