"""An instance attribute a cached bound method or callable object reads, assigned anew (``h.arr = ...``:
a notebook cell reloading a model's data into the existing object), is a change of its key, as a global
name or a class attribute bound anew is — between calls and during one.

Found by a fresh-user trial (trial35 Y16, Y20 HIGH): between calls the old result was answered as a hit;
during a call the new data's result was stored under the old data's key, and a process started again with
the old data answered it, wrong, from cache.sqlite3.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
from support import serve

from nanohubmcp import MCPServer

CACHE = "io.nanohub/cache"


ENTERED, GO_ON = threading.Event(), threading.Event()
PAUSE = {"on": False}  # (the test's own switch: read through a module-level dict, not the instance)


class Holder:
    def __init__(self) -> None:
        self.arr = np.ones(3)

    def run(self, x: float) -> float:
        """The data's sum times x."""
        if PAUSE["on"]:
            ENTERED.set()
            GO_ON.wait(10)
        return float(self.arr.sum()) * x

    def __call__(self, x: float) -> float:
        """The data's sum times x (a callable object)."""
        return float(self.arr.sum()) * x


def answer(server: MCPServer, tool: str) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": 2})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def test_an_attribute_assigned_anew_between_calls_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("instance-between", state_dir=str(tmp_path))
    held, called = Holder(), Holder()
    server.tool(name="method", cache=True)(held.run)
    server.tool(name="callable", cache=True)(called)
    with serve(server):
        for tool, obj in (("method", held), ("callable", called)):
            assert answer(server, tool) == (6.0, {"hit": False})
            assert answer(server, tool)[1]["hit"] is True
            obj.arr = np.ones(3) * 2
            assert answer(server, tool) == (12.0, {"hit": False})


def test_an_attribute_assigned_anew_during_a_call_keeps_its_result_out(tmp_path: Path) -> None:
    server = MCPServer("instance-during", state_dir=str(tmp_path))
    held = Holder()
    server.tool(name="method", cache=True)(held.run)
    out: dict[str, Any] = {}
    PAUSE["on"] = True
    try:
        with serve(server):
            call = threading.Thread(target=lambda: out.setdefault("first", server.call("method", {"x": 2})))
            call.start()
            assert ENTERED.wait(10)
            held.arr = np.ones(3) * 2  # reloaded while the call runs: its result is of the new data
            GO_ON.set()
            call.join(10)
            PAUSE["on"] = False
            assert out["first"]["_meta"][CACHE]["stored"] is False
            held.arr = np.ones(3)  # the old data again: never the new data's result
            assert answer(server, "method") == (6.0, {"hit": False})
    finally:
        PAUSE["on"] = False
    again = MCPServer("instance-during", state_dir=str(tmp_path))  # a restart with the old data
    again.tool(name="method", cache=True)(Holder().run)
    with serve(again):
        assert answer(again, "method") == (6.0, {"hit": True})  # the old data's own result, kept above
