"""An attribute a cached tool reads that did not exist when its key was made and exists now — an
instance's attribute over its class's default (``m.scale = 5``), a subclass's over its base's
(``Sub.scale = 5``), a new name of a module used as a whole (``getattr(mylib, "SCALE", 1.0)``) — is a
change of the key, between calls and during one; so is a module's plain value bound anew.

Found by a fresh-user trial (trial36 Z9, HIGH): the key followed the attributes that existed when it was
made, so the new one was never seen: the old result was answered as a hit, and a result computed while
the attribute was set was stored under the old key, answered wrong by a server started again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paused_call import Pause
from support import serve

from nanohubmcp import MCPServer

CACHE = "io.nanohub/cache"
PAUSE = Pause()


class Model:
    scale = 1.0  # the class default

    def run(self, x: float) -> float:
        """x times the scale."""
        PAUSE.point()
        return x * self.scale

    @classmethod
    def run_class(cls, x: float) -> float:
        """x times the class's scale."""
        return x * cls.scale


class Sub(Model):
    pass


GLOBAL = Model()


def via_global(x: float) -> float:
    """x times the global model's scale."""
    return GLOBAL.run(x)


def via_subclass(x: float) -> float:
    """x times the subclass's scale."""
    return x * Sub.scale


def answer(server: MCPServer, tool: str, x: float = 2.0) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": x})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def test_an_attribute_set_over_a_default_between_calls_is_a_miss(tmp_path: Path) -> None:
    server = MCPServer("first-time-between", state_dir=str(tmp_path))
    bound = Model()
    server.tool(name="bound", cache=True)(bound.run)
    server.tool(name="via_global", cache=True)(via_global)
    server.tool(name="via_subclass", cache=True)(via_subclass)
    server.tool(name="class_method", cache=True)(Sub.run_class)
    with serve(server):
        for tool, owner in (("bound", bound), ("via_global", GLOBAL), ("via_subclass", Sub), ("class_method", Sub)):
            assert answer(server, tool) == (2.0, {"hit": False})
            assert answer(server, tool) == (2.0, {"hit": True})
            owner.scale = 5.0  # over the default: an attribute it did not have
            assert answer(server, tool) == (10.0, {"hit": False}), tool
            assert answer(server, tool) == (10.0, {"hit": True})
            del owner.scale  # the default again: its own result, kept above
            assert answer(server, tool) == (2.0, {"hit": True})


@pytest.fixture
def mylib(tmp_path: Path) -> Iterator[Any]:
    """A module of the user's own, on the import path."""
    (tmp_path / "first_time_lib.py").write_text("BASE = 1.0\n\n\ndef f(x):\n    return x * BASE\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import first_time_lib

        yield first_time_lib
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("first_time_lib", None)


def test_a_module_used_as_a_whole_gaining_or_rebinding_a_value_is_a_miss(tmp_path: Path, mylib: Any) -> None:
    def scaled(x: float) -> float:
        """f(x) times the module's SCALE, if it has one."""
        return mylib.f(x) * getattr(mylib, "SCALE", 1.0)

    server = MCPServer("first-time-module", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(scaled)
    with serve(server):
        assert answer(server, "scaled") == (2.0, {"hit": False})
        assert answer(server, "scaled") == (2.0, {"hit": True})
        mylib.SCALE = 5.0  # a value the module did not have
        assert answer(server, "scaled") == (10.0, {"hit": False})
        mylib.SCALE = 6.0  # and bound anew
        assert answer(server, "scaled") == (12.0, {"hit": False})
        mylib.BASE = 2.0  # a value it had, read through getattr's module as a whole
        assert answer(server, "scaled") == (24.0, {"hit": False})
        assert answer(server, "scaled") == (24.0, {"hit": True})


def test_an_attribute_set_during_a_call_keeps_its_result_out_across_a_restart(tmp_path: Path) -> None:
    server = MCPServer("first-time-during", state_dir=str(tmp_path))
    model = Model()
    server.tool(name="bound", cache=True)(model.run)
    with serve(server):
        first = PAUSE.call_while(server, "bound", {"x": 3.0}, lambda: setattr(model, "scale", 100.0))
        # (set while the call runs: its result is of the new value)
        assert first["_meta"][CACHE] == {"hit": False, "stored": False}
        assert float(first["content"][0]["text"]) == 300.0
    again = MCPServer("first-time-during", state_dir=str(tmp_path))  # a restart: the class default
    again.tool(name="bound", cache=True)(Model().run)
    with serve(again):
        assert answer(again, "bound", 3.0) == (3.0, {"hit": False})  # never 300.0 from cache.sqlite3
        assert answer(again, "bound", 3.0) == (3.0, {"hit": True})
