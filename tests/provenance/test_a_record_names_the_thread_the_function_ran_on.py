"""A call's provenance record names the executor and the thread its function actually ran on: a
sync tool on the worker pool names the worker thread (it named the event loop's thread, whatever
ran the function), one the pool found quick and runs on the loop names the loop, an ``async def``
tool the loop. Found by reading a ``--main`` notebook tool's crate (the trial15 provenance fixes'
notes): its record named the server's loop thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)


def test_each_record_names_the_thread_that_ran_its_function(tmp_path: Path) -> None:
    server = MCPServer("where", state_dir=str(tmp_path))
    ran_on: dict[str, str] = {}

    @server.tool()
    def slow(x: int) -> int:
        """Sleeps a little (the worker pool)."""
        ran_on["slow"] = threading.current_thread().name
        time.sleep(0.02)
        return x

    @server.tool()
    def quick(x: int) -> int:
        """Returns at once (the pool, until the pool finds it quick: then the loop)."""
        ran_on["quick"] = threading.current_thread().name
        return x

    @server.tool()
    async def on_loop(x: int) -> int:
        """A coroutine (the event loop)."""
        ran_on["on_loop"] = threading.current_thread().name
        return x

    seen: set[tuple[str, str]] = set()
    with serve(server):
        loop_thread = None
        for name in ["on_loop", "slow"] + ["quick"] * 40:
            result = server.call(name, {"x": 1})
            record = server.core.provenance.find(result["_meta"][PROVENANCE_META].rsplit("/", 1)[1])
            assert record is not None
            where = record["where"]
            assert where["thread"] == ran_on[name], (name, where)
            if name == "on_loop":
                loop_thread = ran_on[name]
            expected = "event-loop" if ran_on[name] == loop_thread else "worker-pool"
            assert record["executor"] == expected, (name, record["executor"], where)
            seen.add((name, record["executor"]))
    assert ("slow", "worker-pool") in seen
    assert ("on_loop", "event-loop") in seen
    assert ("quick", "worker-pool") in seen
