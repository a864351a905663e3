"""An attribute assigned anew of an instance held in an attribute of another that a cached tool reads
(``CFG.inner.j = 5``, ``M.solver.tol = 5.0``), at any depth, is a change of the tool's key — between calls
and during one, and a result computed while it changed is not answered by a server started again.

Found by a fresh-user trial (trial38 T1, HIGH): the key followed the attributes of the instance read by
global name only, not those of the instances it held: the old result was answered as a hit, and a result
computed while ``CFG.inner.j`` was assigned anew was stored under the old value's key.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from paused_call import Pause
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.code_reach import MAX_REACHED

CACHE = "io.nanohub/cache"
PAUSE = Pause()


class Solver:
    def __init__(self) -> None:
        self.tol = 1.0


class Model:
    __slots__ = ("solver",)

    def __init__(self) -> None:
        self.solver = Solver()


class Locked:
    """Cannot be pickled (it holds a lock): counted by what it holds, one value at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.k = 1.0
        self.inner = SimpleNamespace(j=1.0)


CFG = SimpleNamespace(inner=SimpleNamespace(deeper=SimpleNamespace(j=2.0)))
M = Model()
LOCKED = Locked()
DURING = SimpleNamespace(inner=SimpleNamespace(j=1.0))


def nested_namespace(x: float) -> float:
    """x times the config's inner j."""
    return x * CFG.inner.deeper.j


def nested_instance(x: float) -> float:
    """x times the model's solver's tol."""
    return x * M.solver.tol


def unpicklable(x: float) -> float:
    """x times the locked instance's k and its inner j."""
    with LOCKED.lock:
        return x * LOCKED.k * LOCKED.inner.j


def during(x: float) -> float:
    """x times the inner j, read after the pause."""
    PAUSE.point()
    return x * DURING.inner.j


def answer(server: MCPServer, tool: str, x: float = 2.0) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": x})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def test_a_held_instances_attribute_assigned_anew_between_calls_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("nested-between", state_dir=str(tmp_path))
    server.tool(cache=True)(nested_namespace)
    server.tool(cache=True)(nested_instance)
    with serve(server):
        assert answer(server, "nested_namespace") == (4.0, {"hit": False})
        assert answer(server, "nested_namespace") == (4.0, {"hit": True})
        CFG.inner.deeper.j = 5.0  # two levels down
        assert answer(server, "nested_namespace") == (10.0, {"hit": False})
        CFG.inner.deeper.k = 1  # a name set for the first time there: a change too
        assert answer(server, "nested_namespace") == (10.0, {"hit": False})
        assert answer(server, "nested_namespace") == (10.0, {"hit": True})
        assert answer(server, "nested_instance") == (2.0, {"hit": False})
        assert answer(server, "nested_instance") == (2.0, {"hit": True})
        M.solver.tol = 5.0  # an instance of the user's class held in a slot of another
        assert answer(server, "nested_instance") == (10.0, {"hit": False})
        assert answer(server, "nested_instance") == (10.0, {"hit": True})


def test_an_attribute_of_an_instance_that_cannot_be_pickled_assigned_anew_is_a_miss(tmp_path: Path) -> None:
    # (trial38 T1, seen while fixing it: such an instance counted by its identity alone, so an attribute
    # assigned anew walked the reach again to the same digest, and the old result was answered)
    server = MCPServer("nested-locked", state_dir=str(tmp_path))
    server.tool(cache=True)(unpicklable)
    with serve(server):
        assert answer(server, "unpicklable") == (2.0, {"hit": False})
        assert answer(server, "unpicklable") == (2.0, {"hit": True})
        LOCKED.k = 5.0
        assert answer(server, "unpicklable") == (10.0, {"hit": False})
        LOCKED.inner.j = 2.0
        assert answer(server, "unpicklable") == (20.0, {"hit": False})
        assert answer(server, "unpicklable") == (20.0, {"hit": True})


def test_a_held_instances_attribute_assigned_anew_during_a_call_is_kept_out_across_a_restart(tmp_path: Path) -> None:
    server = MCPServer("nested-during", state_dir=str(tmp_path))
    server.tool(cache=True)(during)
    with serve(server):
        first = PAUSE.call_while(server, "during", {"x": 2.0}, lambda: setattr(DURING.inner, "j", 5.0))
        assert first["_meta"][CACHE] == {"hit": False, "stored": False}
        assert float(first["content"][0]["text"]) == 10.0
    DURING.inner.j = 1.0  # a server started again with the old value
    again = MCPServer("nested-during", state_dir=str(tmp_path))
    again.tool(cache=True)(during)
    with serve(again):
        assert answer(again, "during") == (2.0, {"hit": False})  # never 10.0 from cache.sqlite3
    third = MCPServer("nested-during", state_dir=str(tmp_path))
    third.tool(cache=True)(during)
    with serve(third):
        assert answer(third, "during") == (2.0, {"hit": True})


def nodes(length: int) -> SimpleNamespace:
    """A chain of ``length`` namespaces, each holding the next (``value`` on the last)."""
    node = SimpleNamespace(value=1.0)
    for _ in range(length - 1):
        node = SimpleNamespace(next=node)
    return node


CHAIN = nodes(MAX_REACHED + 10)


def deep_chain(x: float) -> float:
    """x times the chain's last value."""
    node = CHAIN
    while hasattr(node, "next"):
        node = node.next
    return x * node.value


def test_instances_held_deeper_than_the_key_covers_keep_the_tool_uncached(tmp_path: Path) -> None:
    server = MCPServer("nested-deep", state_dir=str(tmp_path))
    server.tool(cache=True)(deep_chain)
    with serve(server):
        value, meta = answer(server, "deep_chain")
        assert (value, meta["hit"], meta["stored"]) == (2.0, False, False)
        assert "reaches more than" in meta["reason"]
