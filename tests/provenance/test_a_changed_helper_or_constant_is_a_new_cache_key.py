"""A cached tool's key covers what its code reaches by global name (a trial finding: only the
tool's own source was hashed, so after fixing the physics in a helper function, or changing a
module-level constant, a restarted server — or a notebook whose helper cell was run again —
answered the old numbers with ``hit: true``).

Across restarts: a script run twice on one state directory, the helper's code or the constant
changed between the runs. In one process: the helper rebound (a cell run again), the same
helper bound again with the same code (still a hit), and ``clear_cache`` for what the key cannot
see (a value changed in place).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

CACHE = "io.nanohub/cache"

SCRIPT = '''
import json, sys
from nanohubmcp import MCPServer

FACTOR = {factor}
server = MCPServer("helpers", state_dir=sys.argv[1])


class Model:
    def energy(self, x):
        return x * {model}


def physics(x):
    return Model().energy(x) * FACTOR + {helper}


@server.tool(cache=True)
def simulate(x: int) -> int:
    """Runs the physics."""
    return physics(x)


server.start(port=0)
result = server.call("simulate", {{"x": 2}})
print(json.dumps([int(result.text), result["_meta"]["{cache}"]["hit"]]))
server.stop()
'''


def run(tmp_path: Path, factor: int = 1, helper: int = 0, model: int = 1) -> list[Any]:
    script = tmp_path / "tool.py"
    script.write_text(SCRIPT.format(factor=factor, helper=helper, model=model, cache=CACHE))
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "state")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    answer: list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_a_restarted_server_runs_again_after_its_helper_a_class_or_a_constant_changed(tmp_path: Path) -> None:
    assert run(tmp_path) == [2, False]
    assert run(tmp_path) == [2, True]  # nothing changed: kept across the restart
    assert run(tmp_path, helper=5) == [7, False]  # the helper function's code changed
    assert run(tmp_path, helper=5, model=3) == [11, False]  # a method of a class the helper uses changed
    assert run(tmp_path, factor=10, helper=5, model=3) == [65, False]  # a module-level constant changed
    assert run(tmp_path, factor=10, helper=5, model=3) == [65, True]


def module(name: str, source: str) -> types.ModuleType:
    """Code as a notebook's cells make it: functions whose globals are one namespace, defined anew by exec."""
    made = types.ModuleType(name)
    exec(source, made.__dict__)
    return made


def test_in_one_process_a_rebound_helper_is_a_new_key_and_clear_cache_drops_the_rest(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    cells = module("cells", "PARAMS = {'scale': 1}\ndef physics(x):\n    return x * PARAMS['scale']\n")
    runs: queue.SimpleQueue[int] = queue.SimpleQueue()  # cannot be pickled: it counts by its identity alone
    server = MCPServer("rebound", state_dir=str(tmp_path / "state"))
    namespace = cells.__dict__
    exec("def simulate(x: int) -> int:\n    '''Runs the physics.'''\n    runs.put(x)\n    return physics(x)\n",
         namespace)
    namespace["runs"] = runs
    server.tool(cache=True)(namespace["simulate"])
    server.start(port=0)
    try:
        def call() -> tuple[int, bool]:
            result = server.call("simulate", {"x": 3})
            return int(result.text), result["_meta"][CACHE]["hit"]

        assert call() == (3, False)
        assert call() == (3, True)
        exec("def physics(x):\n    return x * PARAMS['scale'] * 2\n", namespace)  # the helper's cell, changed
        assert call() == (6, False)
        exec("def physics(x):\n    return x * PARAMS['scale'] * 2\n", namespace)  # run again, unchanged
        assert call() == (6, True)
        namespace["PARAMS"]["scale"] = 5  # changed in place: the key cannot see it ...
        assert call() == (6, True)
        assert server.clear_cache("simulate") >= 1  # ... its owner clears the tool's entries
        assert call() == (30, False)
        assert server.clear_cache() >= 1
        assert server.clear_cache() == 0
        assert [runs.get_nowait() for _ in range(runs.qsize())] == [3, 3, 3]  # the three misses ran
    finally:
        server.stop()


def test_a_cache_size_that_is_not_a_positive_integer_is_refused_at_construction() -> None:
    import pytest

    from nanohubmcp import ConfigurationError, MCPServer

    for wrong in ("1M", None, 0, -1, 1.5, True):
        with pytest.raises(ConfigurationError, match=r"^cache_max_bytes must be a number of bytes >= 1, not "):
            MCPServer("sized", cache_max_bytes=wrong)  # type: ignore[arg-type]
    assert MCPServer("sized", cache_max_bytes=1024).core is not None


def test_a_tool_reading_a_huge_or_self_holding_global_is_still_cached(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    cells = module("big", "TABLE = list(range(200_000))\nLOOP = [1]\nLOOP.append(LOOP)\n")
    exec("def lookup(i: int) -> int:\n    '''A value of the table.'''\n    return TABLE[i] + len(LOOP)\n",
         cells.__dict__)
    server = MCPServer("big", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(cells.__dict__["lookup"])
    server.start(port=0)
    try:
        first, again = server.call("lookup", {"i": 7}), server.call("lookup", {"i": 7})
        assert (int(first.text), first["_meta"][CACHE]["hit"]) == (9, False)
        assert (int(again.text), again["_meta"][CACHE]["hit"]) == (9, True)
    finally:
        server.stop()


def test_tools_of_one_factory_or_of_two_instances_keep_their_own_entries(tmp_path: Path) -> None:
    # A trial finding: double and triple made by one factory shared entries (triple(5) answered 10), as did
    # bound methods of two instances, and a name registered again after remove_tool kept the old results.
    from nanohubmcp import MCPServer

    def make(k: int) -> Any:
        def multiply(x: int) -> int:
            """Multiply by the factory's k."""
            return x * k
        return multiply

    class Model:
        def __init__(self, k: int) -> None:
            self.k = k

        def run(self, x: int) -> int:
            """Multiply by the model's k."""
            return x * self.k

    server = MCPServer("factory", state_dir=str(tmp_path / "state"))
    server.tool(name="double", cache="shared")(make(2))
    server.tool(name="triple", cache="shared")(make(3))
    server.tool(name="model_a", cache="shared")(Model(2).run)
    server.tool(name="model_b", cache="shared")(Model(7).run)
    server.start(port=0)
    try:
        def call(name: str) -> tuple[int, bool]:
            result = server.call(name, {"x": 5})
            return int(result.text), result["_meta"][CACHE]["hit"]

        assert [call(n) for n in ("double", "triple", "model_a", "model_b")] == [
            (10, False), (15, False), (10, False), (35, False)]
        assert [call(n) for n in ("double", "triple", "model_a", "model_b")] == [
            (10, True), (15, True), (10, True), (35, True)]
        assert server.remove_tool("double")
        server.tool(name="double", cache="shared")(make(10))
        assert call("double") == (50, False)
    finally:
        server.stop()


@pytest.mark.filterwarnings("ignore:tool 'slow' has cache='shared' and takes a Context")
def test_a_cancelled_call_is_not_kept_and_a_call_waiting_on_it_runs_its_own(tmp_path: Path) -> None:
    # A trial finding: what a cancelled call returned ("I was cancelled") was stored, and handed to a coalesced
    # caller of another principal and to every later caller, across restarts.
    import asyncio
    import threading

    from nanohubmcp import Context, MCPServer
    from nanohubmcp.testing import MemoryClient

    server = MCPServer("cancelled", state_dir=str(tmp_path / "state"))
    started = threading.Event()
    runs: list[str] = []

    @server.tool(cache="shared")  # a Context, for is_cancelled (the registration warns about who calls)
    def slow(x: int, ctx: Context) -> str:
        """Runs until cancelled (or 20 s)."""
        runs.append("run")
        started.set()
        for _ in range(2000):
            if ctx.is_cancelled():
                return "I was cancelled"
            if len(runs) > 1:  # the second run (the waiter's own) ends at once
                return "done"
            threading.Event().wait(0.01)
        return "done"

    async def scenario() -> list[Any]:
        async with MemoryClient(server) as alice, MemoryClient(server) as bob:
            message = alice.envelope("tools/call", {"name": "slow", "arguments": {"x": 1}})
            first = asyncio.ensure_future(alice.send(message))
            await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
            second = asyncio.ensure_future(bob.call_tool("slow", {"x": 1}))  # waits on alice's run
            await asyncio.sleep(0)
            await alice.notify("notifications/cancelled", {"requestId": message["id"]})
            await first
            theirs = await second
            again = await bob.call_tool("slow", {"x": 1})
            return [theirs, again]

    theirs, again = asyncio.run(scenario())
    assert theirs["content"][0]["text"] == "done"  # bob's own run, not alice's cancelled answer
    assert theirs["_meta"][CACHE] == {"hit": False}
    assert (again["content"][0]["text"], again["_meta"][CACHE]) == ("done", {"hit": True})
    assert runs == ["run", "run"]
