"""A slot of an instance a cached tool reads (a ``__slots__`` class, a ``@dataclass(slots=True)``), assigned
anew, is a change of the tool's key, as an attribute in the instance's ``__dict__`` is — between calls and
during one.

Found by a fresh-user trial (trial36 Z5, HIGH): the key held the instance's ``__dict__`` only, and a slotted
instance has none: after ``s.k = 5.0`` the old result was answered as a hit, and a result computed while
``k`` was assigned anew was stored under the old value's key, answered wrong by a server started again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paused_call import Pause
from support import serve

from nanohubmcp import MCPServer

CACHE = "io.nanohub/cache"
PAUSE = Pause()


class Slotted:
    __slots__ = ("k",)

    def __init__(self, k: float) -> None:
        self.k = k

    def run(self, x: float) -> float:
        """x times k."""
        PAUSE.point()
        return x * self.k


@dataclass(slots=True)
class Params:
    k: float = 2.0

    def run(self, x: float) -> float:
        """x times k."""
        return x * self.k


PARAMS = Params()


def via_global(x: float) -> float:
    """x times the global parameters' k."""
    return PARAMS.run(x)


def answer(server: MCPServer, tool: str, x: float = 2.0) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": x})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def test_a_slot_assigned_anew_between_calls_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("slots-between", state_dir=str(tmp_path))
    slotted, params = Slotted(2.0), Params()
    server.tool(name="slotted", cache=True)(slotted.run)
    server.tool(name="dataclass", cache=True)(params.run)
    server.tool(name="via_global", cache=True)(via_global)
    with serve(server):
        for tool, obj in (("slotted", slotted), ("dataclass", params), ("via_global", PARAMS)):
            assert answer(server, tool) == (4.0, {"hit": False})
            assert answer(server, tool) == (4.0, {"hit": True})
            obj.k = 5.0
            assert answer(server, tool) == (10.0, {"hit": False}), tool
            assert answer(server, tool) == (10.0, {"hit": True})
            del obj.k  # a slot emptied: a change too (the call fails: nothing kept)
            assert server.call(tool, {"x": 2.0}).get("isError") is True
            obj.k = 2.0


def test_a_slot_assigned_anew_during_a_call_keeps_its_result_out_across_a_restart(tmp_path: Path) -> None:
    server = MCPServer("slots-during", state_dir=str(tmp_path))
    slotted = Slotted(1.0)
    server.tool(name="slotted", cache=True)(slotted.run)
    with serve(server):
        first = PAUSE.call_while(server, "slotted", {"x": 3.0}, lambda: setattr(slotted, "k", 100.0))
        # (set while the call runs: its result is of the new value)
        assert first["_meta"][CACHE] == {"hit": False, "stored": False}
        assert float(first["content"][0]["text"]) == 300.0
    again = MCPServer("slots-during", state_dir=str(tmp_path))  # a restart with the old value
    again.tool(name="slotted", cache=True)(Slotted(1.0).run)
    with serve(again):
        assert answer(again, "slotted", 3.0) == (3.0, {"hit": False})  # never 300.0 from cache.sqlite3
    third = MCPServer("slots-during", state_dir=str(tmp_path))
    third.tool(name="slotted", cache=True)(Slotted(1.0).run)
    with serve(third):
        assert answer(third, "slotted", 3.0) == (3.0, {"hit": True})  # the old value's own result, kept
